// Defragmentation advice (issue 34, point 4): for jobs that wait because no domain their
// max_tier asks for (a multi-host NVLink domain, a block, a pod) has room, which running
// jobs to restart elsewhere at their next checkpoint so each waiting job fits, and what
// the moves cost. Nothing is stopped for good: every moved job must have somewhere to
// go, else the move is not proposed.
//
//   TP_ASSIGN_OR_RETURN(DefragPlan p, PlanDefrag(engine, occupancy, running, waiting, {}));
//   for (const Move& m : p.moves) ...   // restart m.id on m.to_hosts at its next checkpoint
//
// How: waiting jobs in order of size (most GPUs first). One that fits as things are takes
// its GPUs and needs no move. For one that does not, the preemption search
// (preemption.h) finds the domain cleared by the fewest running jobs, any priority being
// movable; those jobs are then placed again, largest first, on what is free once they
// leave and the waiting job holds its GPUs. If one of them has nowhere to go, the waiting
// job is left waiting (a note says why) and nothing of that try is kept. Greedy: one
// domain per waiting job, the cheapest by the preemption search's order; it does not look
// for a second domain when the first one's movers do not fit elsewhere.
//
// Cost: a job moved at its next checkpoint loses no work, only its restart: GPUs x
// restart_cost (GPU-hours).
//
// Pure function of its input; thread-safe.
#ifndef TOPOPLACE_SCHEDULER_PLACEMENT_DEFRAG_H_
#define TOPOPLACE_SCHEDULER_PLACEMENT_DEFRAG_H_

#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "scheduler/placement/engine.h"
#include "scheduler/placement/preemption.h"

namespace topoplace::sched {

// A running job defragmentation may move: the job and its spec, to place it again.
struct MovableJob {
  RunningJob job;
  JobSpec spec;
};

struct Move {
  std::string id;  // the running job's id (RunningJob::id)
  int gpus = 0;
  std::string for_job;                // the waiting job it makes room for (canonical spec)
  std::string domain;                 // where that room is: "block 3", "pod 1", ...
  std::vector<std::string> to_hosts;  // where it restarts (its new plan's hosts)
  double gpu_hours = 0;               // what the move costs: gpus x restart_cost
};

struct DefragPlan {
  std::vector<Move> moves;
  std::vector<std::string> freed;  // per waiting job helped: "<spec> in block 3"
  std::vector<std::string> notes;  // per waiting job not helped, or needing no move: why
  double gpu_hours = 0;            // sum over moves
};

struct DefragOptions {
  // What a restart costs a moved job before it trains again. 10 minutes: the simulator's
  // restart time (scheduler/sim/simulator.h, SimFaults::restart_s, from ByteDance's
  // MegaScale, NSDI 2024, section 4).
  absl::Duration restart_cost = absl::Minutes(10);
};

// The moves that let each of `waiting` fit within its max_tier, as described above.
// InvalidArgument when a waiting job is bad for the fabric (as PlacementEngine::Place).
// Preconditions: `running` holds GPUs busy in `occupancy`, ids distinct.
absl::StatusOr<DefragPlan> PlanDefrag(const PlacementEngine& engine, const Occupancy& occupancy,
                                      std::span<const MovableJob> running,
                                      std::span<const JobSpec> waiting,
                                      const DefragOptions& options = {});

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_PLACEMENT_DEFRAG_H_
