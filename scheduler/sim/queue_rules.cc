#include "scheduler/sim/queue_rules.h"

#include <algorithm>
#include <iterator>
#include <limits>

namespace topoplace::sched::sim {

void EnqueueByPriority(std::list<size_t>& queue, size_t j, bool returning,
                       absl::FunctionRef<int64_t(size_t)> priority_of) {
  const int64_t priority = priority_of(j);
  if (returning) {
    auto it = std::find_if(queue.begin(), queue.end(),
                           [&](size_t k) { return priority_of(k) <= priority; });
    queue.insert(it, j);
    return;
  }
  auto it = queue.end();
  while (it != queue.begin() && priority_of(*std::prev(it)) < priority) --it;
  queue.insert(it, j);
}

EasyReservation ReserveForHead(int64_t free_gpus, int64_t head_gpus,
                               const std::set<std::pair<double, size_t>>& running,
                               absl::FunctionRef<int64_t(size_t)> gpus_of) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  int64_t avail = free_gpus;
  if (avail >= head_gpus) return {running.empty() ? kInf : running.begin()->first, 0};
  for (const auto& [end, j] : running) {
    avail += gpus_of(j);
    if (avail >= head_gpus) return {end, avail - head_gpus};
  }
  return {kInf, 0};
}

}  // namespace topoplace::sched::sim
