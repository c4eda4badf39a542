// The event-driven simulation: jobs arrive, wait in one queue (by priority, then arrival;
// FIFO when every priority is 0), are placed by the real
// PlacementEngine under one policy, run for their trace duration stretched by the comm
// model's slowdown of the chosen placement (with shared_links: by their current share of
// the links they cross, as other jobs start and end), and release their GPUs.
//
// Scheduling is FIFO with EASY backfill (Lifka 1995; what Slurm's sched/backfill does):
//  - at every event time, completions are processed first, then arrivals, then one pass;
//  - the pass starts queue heads in order while they can be placed;
//  - when the head cannot be placed, it gets a reservation: its shadow time is when enough
//    GPUs will be free for it (running jobs end at their known, slowdown-adjusted end
//    times; GPUs are counted, not hosts), and `extra` is how many GPUs would be free at
//    that time beyond its need;
//  - later jobs (at most `backfill_window` of them, like Slurm's bf_max_job_test) start
//    out of order if they can be placed now and either end by the shadow time or use no
//    more than `extra` GPUs (which then shrinks), so the head is never delayed by them,
//    as far as GPU counts tell.
// A job that cannot be placed is not retried until some job has released GPUs (placement
// is capacity-monotone: fewer free GPUs never make a job fit). A head that cannot be placed
// on an idle cluster, or a job larger than the fabric, is rejected instead of blocking the
// queue forever.
//
// Fragmentation, sampled after every pass and integrated over time: free GPUs on hosts
// with fewer free GPUs than the smallest per-node need among the waiting jobs (in the
// backfill window) that would fit by GPU count; 0 when nothing waits.
//
//   Simulator sim(fabric, {});
//   TP_ASSIGN_OR_RETURN(SimResult r, sim.Run(trace, "topoplace"));
//
// Deterministic for a given trace, fabric, policy, options and seed (except the measured
// wall times). Run is const and may be called concurrently on one Simulator.
#ifndef TOPOPLACE_SCHEDULER_SIM_SIMULATOR_H_
#define TOPOPLACE_SCHEDULER_SIM_SIMULATOR_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "scheduler/framework/registry.h"
#include "scheduler/placement/engine.h"
#include "scheduler/sim/faults.h"
#include "scheduler/sim/sim_result.h"
#include "scheduler/sim/trace.h"
#include "scheduler/steptime/comm_model.h"
#include "topology/model/fabric.h"

namespace topoplace::sched::sim {

// Faults replayed during a run (needs shared_links: a degraded link slows the jobs on it
// through the link sharing, a failed one lowers its switches' uplink capacity, see
// fault_state.h):
//  - a job whose GPUs sit on a host a failure cuts off, or whose traffic crosses a link
//    that fails (or a link of a switch that fails), is interrupted: it loses the work done
//    since its last checkpoint, releases its GPUs and goes back to the head of the queue;
//    its next start first spends restart_s reloading (at the job's speed), then redoes
//    the lost work. Degradations interrupt nothing.
//  - who knows what: failures that cut hosts off (host, NIC cable, leaf) are known to
//    every policy at once (the job on them fails and the node is drained, as Slurm and
//    Kubernetes do); failures of other links and switches and every degradation are known
//    only to policies that watch link health (WatchesLinkHealth), detect_s after they
//    begin and recover_s after they end; blind policies place on them as if healthy.
struct SimFaults {
  std::shared_ptr<const FaultSchedule> schedule;  // null or empty: no faults
  // Useful work (at reference speed) between checkpoints; 0: every instant is saved.
  // 2 hours: Alibaba HPN (SIGCOMM 2024, section 2.3) checkpoints every 2-4 hours (Meta's
  // reliability study, Kokolis et al. HPCA 2025, models hourly checkpoints).
  double checkpoint_interval_s = 2 * 3600;
  // Time a restarted job spends before it trains again. 10 minutes: ByteDance's MegaScale
  // (NSDI 2024, section 4) detects and diagnoses a fault in under 10 minutes; Kokolis et
  // al. model 5-20 minutes.
  double restart_s = 600;
  // Detection of a link or switch fault by a link-health watcher: the agents' probe
  // interval (10 s, telemetry/probe/probe_plan.h) times the bad samples the health model's
  // hysteresis waits for (2, telemetry/health/link_verdict.h); of a repair: times the
  // good samples it waits for (3). The CLI derives both from those defaults.
  double detect_s = 20;
  double recover_s = 30;
  // The control run that measures what watching link health is worth: the policy learns
  // only of faults that cut hosts off, as the baselines do, even if it watches links.
  bool ignore_link_health = false;
};

// The name a fault sweep gives topoplace's control run (SimFaults::ignore_link_health).
inline constexpr absl::string_view kBlindTopoplaceLabel = "topoplace-blind";

// Whether `policy` learns of link and switch faults: topoplace's own policy does (the
// daemon's health model feeds its engine); the baselines imitate schedulers that watch
// node health only.
bool WatchesLinkHealth(const std::string& policy);

// Preemption (issue 34): what the scheduler does when the queue's head cannot be placed
// while jobs of strictly lower priority run. Victims are stopped as a fault stops a job
// (SimFaults: they lose the work since their last checkpoint, pay restart_s at their next
// start) and go back into the queue at the front of their priority class.
enum class PreemptionMode : uint8_t {
  kNone,  // the head waits
  // Topology-blind, priority-only (Kueue's preemption without topology, as the issue
  // names the comparison): lowest priority first until enough hosts have the head's GPUs
  // per node free anywhere (PriorityOnlyVictims), then the head is placed if it can be;
  // if its tier still does not let it, the victims were stopped in vain and it waits.
  kPriorityOnly,
  // topoplace's choice (PlanPreemption): the victims that free one domain the head's tier
  // allows, losing the least work; the head starts on that plan.
  kTopology,
};

// "none", "priority-only", "topology".
absl::string_view PreemptionModeName(PreemptionMode mode);

struct SimPreemption {
  PreemptionMode mode = PreemptionMode::kNone;
  // Look-ahead (issue 34, point 5): while jobs that need a block wait (hard
  // max_tier=block and at least half a block's hosts), one block per such job, those that
  // will be whole free soonest by the running jobs' expected ends (what EASY backfill
  // reads), is kept from every other job: its free GPUs go to those jobs only, so it
  // drains towards a whole block (as a Slurm reservation drains nodes) instead of being
  // filled by smaller jobs. Costs utilisation while it drains. Never applied while
  // nothing runs (a kept block must not stall an idle cluster).
  bool look_ahead = false;
};

struct SimOptions {
  int backfill_window = 500;  // jobs behind the head considered per pass
  uint64_t seed = 1;          // job j is placed with seed (seed * 1000003 + j.id)
  // NCCL PXN: cross-rail traffic hops over NVLink first. Needed on rail-plane fabrics
  // (rail-28k), where hosts with different free GPU indices could not talk otherwise.
  bool rail_local = true;
  CommModelOptions comm;
  // Overrides of the registry's scorer weights, for every policy's placements (as
  // `place --weights`).
  ScorerWeights weights;
  // Jobs share links (link_sharing.h): each running job's traffic lands on the links it
  // crosses, every link direction is shared max-min fairly, recomputed at every start and
  // end, and each job's remaining work advances at its current rate. Off: each job is
  // charged alone by the comm model's tier bandwidths, as before.
  bool shared_links = false;
  // With shared_links: how each job's bytes split over parallel uplinks. Hashing is seeded
  // per job from `seed` and the job id, so a run is reproducible.
  EcmpMode ecmp = EcmpMode::kFluid;
  // Tell the engine how loaded each switch's uplinks are (PlacementRequest::uplink_busy):
  // the bytes per second running jobs offer them at full speed, over their capacity, so
  // the uplink-load scorer can steer new jobs off hot uplinks.
  bool load_aware = false;
  // Where the engine is told the queue (NVLink racks: QueueOutlook), each job's expected
  // run is its trace duration left times this: 1 is exact, as no scheduler knows it; a
  // time limit overestimates (2: twice the run). Precondition: > 0.
  double run_estimate = 1;
  SimFaults faults;
  SimPreemption preemption;
};

class Simulator {
 public:
  // `fabric` must not be null.
  Simulator(FabricPtr fabric, const SimOptions& options);

  // Replays `trace` (sorted by arrival, see SortByArrival) under `policy`.
  // InvalidArgument for an unknown policy, a job spec the engine rejects as malformed, or
  // faults without shared_links; Internal if the engine fails otherwise.
  absl::StatusOr<SimResult> Run(const Trace& trace, const std::string& policy) const;

  const CommModel& comm_model() const { return comm_; }

 private:
  FabricPtr fabric_;
  SimOptions options_;
  PlacementEngine engine_;
  CommModel comm_;
};

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_SIMULATOR_H_
