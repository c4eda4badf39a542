// Preemption plans (issue 34, point 2): when a job does not fit, which running jobs of
// strictly lower priority to stop so that it fits inside one domain (a multi-host NVLink
// domain, a block, a pod, as its max_tier asks), losing the least.
//
//   TP_ASSIGN_OR_RETURN(PreemptionPlan p, PlanPreemption(engine, request, occupancy, running));
//   for (const Victim& v : p.victims) ...   // stop these, then place p.plan
//
// The search goes domain level by domain level, innermost first (NVLink domain when the job
// fits one, then block, pod, cluster up to the job's max_tier), and stops at the first level
// where some domain can be cleared. Inside a domain the victims are chosen greedily: the
// running jobs of lower priority with GPUs there, cheapest first (work lost, then lower
// priority, then more GPUs freed there), until enough of its hosts have gpus_per_node free
// GPUs; victims that turn out unnecessary are dropped again. Domains then compare by work
// lost (GPU-hours since the victims' last checkpoints, counted only where known), number
// of victims, highest victim priority. The engine places the job on the hosts of the
// chosen domain with the victims' GPUs freed, so the plan is a real plan; a domain whose
// placement still fails (health, exclusions, rails) is skipped for the next best.
//
// Greedy, not optimal: it can stop more jobs than a full search would when victims of
// different sizes interleave. It never picks a job of equal or higher priority.
//
// Pure function of its input; thread-safe.
#ifndef TOPOPLACE_SCHEDULER_PLACEMENT_PREEMPTION_H_
#define TOPOPLACE_SCHEDULER_PLACEMENT_PREEMPTION_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/placement/engine.h"

namespace topoplace::sched {

// A job holding GPUs now, as the preemption search sees it.
struct RunningJob {
  std::string id;  // allocation id or scheduler job id, echoed in Victim
  int64_t priority = 0;
  std::vector<GpuId> gpus;
  // GPU-hours of work it loses if stopped now (since its last checkpoint); nullopt when
  // unknown (such a job counts as losing nothing, and the number of victims decides).
  std::optional<double> lost_gpu_hours;
};

struct Victim {
  std::string id;
  int64_t priority = 0;
  std::optional<double> lost_gpu_hours;
  std::string reason;  // why this job, one line
};

struct PreemptionPlan {
  std::vector<Victim> victims;  // empty when the job fits as things are
  PlacementPlan plan;           // the job's plan once the victims' GPUs are free
  std::string domain;           // where: "block 3", "pod 1", "NVLink domain rack-7", ...
  double lost_gpu_hours = 0;    // over the victims whose loss is known
};

// The cheapest preemption that lets request.job fit inside one domain its max_tier allows
// (any domain when max_tier=cluster or mode=soft). If the job fits without stopping
// anything, returns that plan and no victims. ResourceExhausted, naming the job's
// priority, when no set of lower-priority jobs would make room. Preconditions: `running`
// holds GPU ids of engine's fabric, busy in `occupancy`; ids are distinct.
absl::StatusOr<PreemptionPlan> PlanPreemption(const PlacementEngine& engine,
                                              const PlacementRequest& request,
                                              const Occupancy& occupancy,
                                              std::span<const RunningJob> running);

// The choice of a priority-only scheduler (Kueue's preemption without topology, for
// comparison): lowest priority first (ties in input order), until the
// cluster has enough hosts with gpus_per_node free GPUs, wherever they are. Returns the
// victims' ids; empty if nothing of lower priority would make room.
std::vector<std::string> PriorityOnlyVictims(const Fabric& fabric, const JobSpec& job,
                                             const Occupancy& occupancy,
                                             std::span<const RunningJob> running);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_PLACEMENT_PREEMPTION_H_
