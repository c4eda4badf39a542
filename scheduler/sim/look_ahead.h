// Look-ahead's choices (simulator.h SimPreemption::look_ahead): which jobs need a whole
// block, and which blocks to keep for them, those that will be whole free soonest.
//
//   const std::vector<bool> needs = JobsNeedingABlock(fabric, trace);
//   const std::vector<int32_t> kept = BlocksWholeSoonest(fabric, running, gpus_of, 2);
#ifndef TOPOPLACE_SCHEDULER_SIM_LOOK_AHEAD_H_
#define TOPOPLACE_SCHEDULER_SIM_LOOK_AHEAD_H_

#include <cstddef>
#include <cstdint>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "scheduler/sim/trace.h"
#include "topology/model/fabric.h"

namespace topoplace::sched::sim {

// Per job of `trace`: whether it needs a whole block (hard max_tier=block and at least
// half the smallest block's hosts). Empty for a fabric without blocks: look-ahead is off.
std::vector<bool> JobsNeedingABlock(const Fabric& fabric, const Trace& trace);

// The `count` blocks whole free soonest by the running jobs' ends (`running`: (end, job);
// `gpus_of`: a running job's GPUs); an idle block first, ties in block order. Sorted by
// block index.
std::vector<int32_t> BlocksWholeSoonest(const Fabric& fabric,
                                        const std::set<std::pair<double, size_t>>& running,
                                        absl::FunctionRef<std::span<const GpuId>(size_t)> gpus_of,
                                        size_t count);

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_LOOK_AHEAD_H_
