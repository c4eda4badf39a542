#include "scheduler/traffic/node_graph.h"

#include <cstddef>

#include "scheduler/traffic/repeated_add.h"

namespace topoplace::sched {
namespace {

// Positions i in [0, n) where a[i] and b[i] differ. Chunks of a fixed 16 positions, so
// that -O2's cheap vectoriser takes the inner loop (it leaves loops of unknown count).
int64_t Differing(const int32_t* a, const int32_t* b, size_t n) {
  constexpr size_t kChunk = 16;
  int64_t count = 0;
  size_t i = 0;
  for (; i + kChunk <= n; i += kChunk) {
    int32_t chunk = 0;
    for (size_t j = 0; j < kChunk; ++j) chunk += a[i + j] != b[i + j];
    count += chunk;
  }
  for (; i < n; ++i) count += a[i] != b[i];
  return count;
}

}  // namespace

NodeGraph BuildNodeGraph(const RankLayout& layout, const TrafficModel& traffic, int gpus_per_node,
                         int nodes) {
  NodeGraph graph;
  graph.nodes = nodes;
  graph.segments.reserve(2 * kAllDims.size());  // a dimension's pattern and its ring
  const int g = gpus_per_node;
  for (Dim d : kAllDims) {
    if (layout.size(d) <= 1 || layout.stride(d) % g != 0) continue;
    const int step = layout.stride(d) / g;
    // A chain edge stands for both directions.
    const auto add = [&](Pattern pattern, double pair) {
      const double weight = (pattern == Pattern::kChain ? 2 : 1) * g * pair;
      graph.segments.push_back({pattern, step, layout.size(d), weight});
    };
    if (traffic.pair(d) > 0) add(PatternOf(d), traffic.pair(d));
    if (traffic.ring_pair(d) > 0) add(Pattern::kRing, traffic.ring_pair(d));
  }
  return graph;
}

EdgeFamilyList EdgeFamilies(const NodeGraph::Segment& segment) {
  const int64_t s = segment.step;
  const int64_t n = segment.size;
  const int64_t period = s * n;  // slots of one group: every coordinate once
  EdgeFamilyList out;
  switch (segment.pattern) {
    case Pattern::kRing:  // the last coordinate's run back to the first
      out.push_back({period, (n - 1) * s, s, -(n - 1) * s, 1, false});
      // each coordinate's run to the next one's
      out.push_back({period, 0, (n - 1) * s, s, 1, false});
      break;
    case Pattern::kChain:
      out.push_back({period, 0, (n - 1) * s, s, 1, true});
      break;
    case Pattern::kAllToAll:
      for (int64_t a = 0; a < n; ++a) {
        for (int64_t b = a + 1; b < n; ++b) out.push_back({period, a * s, s, (b - a) * s, 2, true});
      }
      break;
  }
  return out;
}

int64_t CrossingEdges(const NodeGraph::Segment& segment, std::span<const int32_t> node_block) {
  const size_t period = static_cast<size_t>(segment.step) * segment.size;
  int64_t crossing = 0;
  for (const EdgeFamily& f : EdgeFamilies(segment)) {
    for (size_t base = 0; base + period <= node_block.size(); base += period) {
      const int32_t* from = node_block.data() + base + f.first;
      crossing += f.multiplicity * Differing(from, from + f.delta, f.width);
    }
  }
  return crossing;
}

double CrossBlockBytes(const NodeGraph& graph, std::span<const int32_t> node_block) {
  double bytes = 0;
  for (const NodeGraph::Segment& segment : graph.segments) {
    bytes = AddRepeated(bytes, segment.weight, CrossingEdges(segment, node_block));
  }
  return bytes;
}

}  // namespace topoplace::sched
