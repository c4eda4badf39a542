#include "scheduler/traffic/node_graph.h"

#include "scheduler/traffic/repeated_add.h"

namespace topoplace::sched {

NodeGraph BuildNodeGraph(const RankLayout& layout, const TrafficModel& traffic, int gpus_per_node,
                         int nodes) {
  NodeGraph graph;
  const int g = gpus_per_node;
  for (Dim d : kAllDims) {
    const int size = layout.size(d);
    const double pair = traffic.pair(d);
    if (size <= 1 || pair <= 0 || layout.stride(d) % g != 0) continue;
    const Pattern pattern = PatternOf(d);
    const size_t per_node = pattern == Pattern::kAllToAll ? size - 1 : 1;
    graph.from.reserve(graph.from.size() + per_node * nodes);
    graph.to.reserve(graph.to.size() + per_node * nodes);
    const auto add = [&](int a, int b) {
      graph.from.push_back(a);
      graph.to.push_back(b);
    };
    for (int k = 0; k < nodes; ++k) {
      const int rank = k * g;
      const int coord = layout.Coord(rank, d);
      switch (pattern) {
        case Pattern::kRing:
          add(k, layout.Neighbor(rank, d) / g);
          break;
        case Pattern::kChain:
          if (coord + 1 < size) add(k, layout.Neighbor(rank, d) / g);
          break;
        case Pattern::kAllToAll:
          for (int c = 0; c < size; ++c) {
            if (c != coord) add(k, layout.WithCoord(rank, d, c) / g);
          }
          break;
      }
    }
    // A chain edge stands for both directions.
    const double weight = (pattern == Pattern::kChain ? 2 : 1) * g * pair;
    graph.segments.push_back({graph.from.size(), weight});
  }
  return graph;
}

double CrossBlockBytes(const NodeGraph& graph, std::span<const int32_t> node_block) {
  double bytes = 0;
  size_t e = 0;
  for (const NodeGraph::Segment& segment : graph.segments) {
    int64_t crossing = 0;
    for (; e < segment.end; ++e) {
      crossing += node_block[graph.from[e]] != node_block[graph.to[e]];
    }
    bytes = AddRepeated(bytes, segment.weight, crossing);
  }
  return bytes;
}

}  // namespace topoplace::sched
