#include "scheduler/placement/lower_bound.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <vector>

namespace topoplace::sched {

double RankGraphEdgeConnectivity(const RankLayout& layout, const TrafficModel& traffic) {
  const double n_total = layout.world_size();
  double sum_delta = 0;
  double best_factor_cut = std::numeric_limits<double>::infinity();
  bool any = false;
  for (Dim d : kAllDims) {
    const int n = layout.size(d);
    if (n <= 1) continue;
    any = true;
    const double x = traffic.pair(d);
    // Minimum degree and edge connectivity of the factor graph, weights = bytes both ways.
    double delta = 0;
    switch (PatternOf(d)) {
      case Pattern::kRing:
        // Unidirectional ring: each rank sends x to its successor and receives x from its
        // predecessor (for n = 2 both go over the one edge): 2x at every vertex and across
        // every cut of the cycle.
        delta = 2 * x;
        break;
      case Pattern::kAllToAll:
        delta = (n - 1) * 2 * x;  // clique: lambda(K_n) = delta = n-1 edges of 2x
        break;
      case Pattern::kChain:
        delta = 2 * x;  // path: an end vertex has one edge of x each way; lambda = 2x
        break;
    }
    // A ring beside the dimension's own pattern (ring_pair_bytes) over the same members
    // adds 2r at every vertex and across every cut; with a clique, still lambda = delta.
    delta += 2 * traffic.ring_pair(d);
    sum_delta += delta;
    best_factor_cut = std::min(best_factor_cut, delta * (n_total / n));
  }
  if (!any) return 0;
  return std::min(sum_delta, best_factor_cut);
}

int MinBlocksNeeded(const Inventory& inv, int nodes) {
  std::vector<int> free(inv.fabric().blocks().size());
  for (size_t b = 0; b < free.size(); ++b) free[b] = inv.block_free(static_cast<int32_t>(b));
  std::sort(free.begin(), free.end(), std::greater<>());
  int covered = 0;
  for (size_t k = 0; k < free.size(); ++k) {
    covered += free[k];
    if (covered >= nodes) return static_cast<int>(k) + 1;
  }
  return 0;
}

double SpineBytesLowerBound(const RankLayout& layout, const TrafficModel& traffic,
                            const Inventory& inv, int nodes) {
  const int k = MinBlocksNeeded(inv, nodes);
  if (k <= 1) return 0;
  return k * RankGraphEdgeConnectivity(layout, traffic) / 2;
}

}  // namespace topoplace::sched
