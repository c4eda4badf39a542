#include "scheduler/traffic/node_graph.h"

#include "scheduler/traffic/repeated_add.h"

namespace topoplace::sched {

namespace {

// Appends one segment: the node edges of dimension d in `pattern`, `pair` bytes each way.
void AddSegment(const RankLayout& layout, Dim d, Pattern pattern, double pair, int g, int nodes,
                NodeGraph& graph) {
  const int size = layout.size(d);
  const size_t per_node = pattern == Pattern::kAllToAll ? size - 1 : 1;
  graph.from.reserve(graph.from.size() + per_node * nodes);
  graph.to.reserve(graph.to.size() + per_node * nodes);
  const auto add = [&](int a, int b) {
    graph.from.push_back(a);
    graph.to.push_back(b);
  };
  // Node k's partner at coordinate c is k + (c - coord) * step (stride is node-aligned).
  const int step = layout.stride(d) / g;
  const std::vector<int> coords = layout.NodeCoords(d, g, nodes);
  for (int k = 0; k < nodes; ++k) {
    const int coord = coords[k];
    const int next = coord + 1 < size ? k + step : k - coord * step;  // ring successor
    switch (pattern) {
      case Pattern::kRing:
        add(k, next);
        break;
      case Pattern::kChain:
        if (coord + 1 < size) add(k, next);
        break;
      case Pattern::kAllToAll:
        for (int c = 0; c < size; ++c) {
          if (c != coord) add(k, k + (c - coord) * step);
        }
        break;
    }
  }
  // A chain edge stands for both directions.
  const double weight = (pattern == Pattern::kChain ? 2 : 1) * g * pair;
  graph.segments.push_back({graph.from.size(), weight});
}

}  // namespace

NodeGraph BuildNodeGraph(const RankLayout& layout, const TrafficModel& traffic, int gpus_per_node,
                         int nodes) {
  NodeGraph graph;
  const int g = gpus_per_node;
  for (Dim d : kAllDims) {
    if (layout.size(d) <= 1 || layout.stride(d) % g != 0) continue;
    if (traffic.pair(d) > 0) AddSegment(layout, d, PatternOf(d), traffic.pair(d), g, nodes, graph);
    if (traffic.ring_pair(d) > 0) {
      AddSegment(layout, d, Pattern::kRing, traffic.ring_pair(d), g, nodes, graph);
    }
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
