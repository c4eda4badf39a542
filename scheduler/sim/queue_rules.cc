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

void FillOutlook(const Fabric& fabric, const std::list<size_t>& queue, size_t j, int window,
                 const std::set<std::pair<double, size_t>>& running, double now,
                 absl::FunctionRef<int(size_t)> nodes_of,
                 absl::FunctionRef<std::span<const GpuId>(size_t)> gpus_of, QueueOutlook& out) {
  out.waiting_nodes.clear();
  for (size_t k : queue) {
    if (static_cast<int>(out.waiting_nodes.size()) >= window) break;
    if (k != j) out.waiting_nodes.push_back(nodes_of(k));
  }
  out.host_free_in_s.assign(fabric.hosts().size(), 0.0);
  for (const auto& [end, k] : running) {
    for (GpuId g : gpus_of(k)) {
      double& free_in = out.host_free_in_s[fabric.gpus()[g].host];
      free_in = std::max(free_in, std::max(0.0, end - now));
    }
  }
}

}  // namespace topoplace::sched::sim
