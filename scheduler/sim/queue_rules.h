// The queue's rules, apart from the event loop (simulator.h states them): jobs wait by
// priority, then arrival (FIFO when every priority is 0), a returning job (interrupted or
// preempted) in front of its priority class; a blocked head gets an EASY reservation.
//
//   EnqueueByPriority(queue, j, /*returning=*/false, priority_of);
//   const EasyReservation r = ReserveForHead(free_gpus, head_gpus, running, gpus_of);
#ifndef TOPOPLACE_SCHEDULER_SIM_QUEUE_RULES_H_
#define TOPOPLACE_SCHEDULER_SIM_QUEUE_RULES_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "scheduler/framework/queue_outlook.h"
#include "topology/model/fabric.h"

namespace topoplace::sched::sim {

// Puts job `j` into `queue` (job indices, front first): an arriving job behind every job
// of its priority or higher, a returning one in front of every job of its priority or
// lower (it arrived before those).
void EnqueueByPriority(std::list<size_t>& queue, size_t j, bool returning,
                       absl::FunctionRef<int64_t(size_t)> priority_of);

// EASY backfill's reservation for a head that cannot start: when enough GPUs will be free
// for it (`shadow_s`, by the running jobs' ends) and how many beyond its need will be free
// then (`extra_gpus`, what a later job may take without delaying it).
struct EasyReservation {
  double shadow_s = 0;
  int64_t extra_gpus = 0;
};

// `running`: (end time, job) of the running jobs, earliest first; `gpus_of` a job's GPUs.
// A head that fits by count but was not placed is assumed to start at the next end
// (extra 0); one that never fits gets an infinite shadow.
EasyReservation ReserveForHead(int64_t free_gpus, int64_t head_gpus,
                               const std::set<std::pair<double, size_t>>& running,
                               absl::FunctionRef<int64_t(size_t)> gpus_of);

// What the engine is told of the jobs to come when job `j` is tried at `now`
// (queue_outlook.h): the hosts each other queued job needs (`nodes_of`; at most `window`
// of them, in queue order) and per host the seconds until the running jobs on it are
// expected to end (`running`: (end time, job), as ReserveForHead reads them; `gpus_of` a
// running job's GPUs). Refills `out` in place (its buffers are reused).
void FillOutlook(const Fabric& fabric, const std::list<size_t>& queue, size_t j, int window,
                 const std::set<std::pair<double, size_t>>& running, double now,
                 absl::FunctionRef<int(size_t)> nodes_of,
                 absl::FunctionRef<std::span<const GpuId>(size_t)> gpus_of, QueueOutlook& out);

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_QUEUE_RULES_H_
