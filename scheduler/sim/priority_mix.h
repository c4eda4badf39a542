// High-priority jobs for preemption studies (issue 34): a stated share of a trace's large
// jobs become high priority and must run inside one block (hard max_tier=block), as a
// training job with a required topology does (Kueue's podset-required-topology, Slurm's
// --switches=1). The other jobs keep priority 0 and their constraints.
//
//   TP_RETURN_IF_ERROR(AssignPriorities(trace, fabric, {.share = 0.2}));
//
// Pure function of its input; the draw is its own seeded stream, so the same jobs are
// chosen whatever else the run varies (policy, load scale, preemption mode).
#ifndef TOPOPLACE_SCHEDULER_SIM_PRIORITY_MIX_H_
#define TOPOPLACE_SCHEDULER_SIM_PRIORITY_MIX_H_

#include <cstdint>

#include "absl/status/status.h"
#include "scheduler/sim/trace.h"
#include "topology/model/fabric.h"

namespace topoplace::sched::sim {

struct PriorityMix {
  double share = 0;  // of the eligible jobs, in [0, 1]; 0 changes nothing
  // Eligible: at least this many GPUs, and no more hosts than the smallest block holds
  // (a job that cannot fit one block cannot be asked to).
  int64_t min_gpus = 128;
  int64_t priority = 10;  // given to the chosen jobs
  uint64_t seed = 1;
};

// Draws a coin for every job in trace order; an eligible job whose coin falls under
// `share` gets `priority` and a hard max_tier=block (its max_wait is dropped: it waits for
// its block or for preemption). InvalidArgument for a share outside [0, 1], min_gpus < 1,
// a priority outside 1..kMaxPriority or a fabric without blocks.
absl::Status AssignPriorities(Trace& trace, const Fabric& fabric, const PriorityMix& mix);

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_PRIORITY_MIX_H_
