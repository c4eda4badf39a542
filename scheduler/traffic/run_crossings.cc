#include "scheduler/traffic/run_crossings.h"

#include <algorithm>

#include "scheduler/traffic/repeated_add.h"

namespace topoplace::sched {

int64_t RunCrossings::StartsBelow(const Family& f, int64_t x) {
  return (x / f.period) * f.width + std::clamp(x % f.period - f.first, int64_t{0}, f.width);
}

int64_t RunCrossings::EdgesWithin(const Family& f, int64_t lo, int64_t hi) {
  // Starts p with p and p + delta both in [lo, hi).
  const int64_t from = std::max(lo, lo - f.delta);
  const int64_t to = std::min(hi, hi - f.delta);
  return to > from ? StartsBelow(f, to) - StartsBelow(f, from) : 0;
}

std::vector<RunCrossings::Family> RunCrossings::NodeOrderFamilies(const NodeGraph::Segment& segment,
                                                                  int nodes) {
  const int64_t s = segment.step;
  const int64_t n = segment.size;
  const int64_t period = s * n;  // slots of one group: every coordinate once
  if (s <= 0 || n <= 1 || nodes % period != 0) return {};
  std::vector<Family> out;
  switch (segment.pattern) {
    case Pattern::kRing:  // the last coordinate's run back to the first
      out.push_back({period, (n - 1) * s, s, -(n - 1) * s, 1});
      [[fallthrough]];
    case Pattern::kChain:  // each coordinate's run to the next one's
      out.push_back({period, 0, (n - 1) * s, s, 1});
      break;
    case Pattern::kAllToAll:  // every unordered pair of coordinates, counted both ways
      for (int64_t a = 0; a < n; ++a) {
        for (int64_t b = a + 1; b < n; ++b) out.push_back({period, a * s, s, (b - a) * s, 2});
      }
      break;
  }
  return out;
}

void RunCrossings::Add(double weight, std::vector<Family> families) {
  Segment segment{weight, std::move(families), {}};
  for (const Family& f : segment.families) segment.totals.push_back(EdgesWithin(f, 0, nodes_));
  segments_.push_back(std::move(segment));
}

std::optional<RunCrossings> RunCrossings::InNodeOrder(const NodeGraph& graph) {
  RunCrossings out;
  out.nodes_ = graph.nodes;
  for (const NodeGraph::Segment& segment : graph.segments) {
    std::vector<Family> families = NodeOrderFamilies(segment, graph.nodes);
    if (families.empty()) return std::nullopt;
    out.Add(segment.weight, std::move(families));
  }
  return out;
}

std::optional<RunCrossings> RunCrossings::GroupedBy(const NodeGraph& graph,
                                                    const RankLayout& layout, Dim dim,
                                                    int gpus_per_node) {
  const int64_t nodes = graph.nodes;
  const int64_t size = layout.size(dim);
  if (gpus_per_node <= 0 || size <= 1 || layout.stride(dim) % gpus_per_node != 0) {
    return std::nullopt;
  }
  // Slot k = hi * group + coord * step + lo (lo < step) sits at position
  // coord * unit + (hi * step + lo): its index among the slots of its coordinate.
  const int64_t step = layout.stride(dim) / gpus_per_node;
  const int64_t group = step * size;
  if (nodes % group != 0) return std::nullopt;
  const int64_t unit = nodes / size;
  RunCrossings out;
  out.nodes_ = graph.nodes;
  for (const NodeGraph::Segment& segment : graph.segments) {
    std::vector<Family> families = NodeOrderFamilies(segment, graph.nodes);
    if (families.empty()) return std::nullopt;
    const int64_t period = static_cast<int64_t>(segment.step) * segment.size;
    for (Family& f : families) {
      if (segment.step == step && segment.size == size) {
        // `dim` itself: coordinate c's slots are the run [c * unit, (c + 1) * unit), and
        // an edge keeps its index within the run.
        const int64_t scale = unit / step;
        f = {nodes, f.first * scale, f.width * scale, f.delta * scale, f.multiplicity};
      } else if (step % period == 0) {
        // A dimension inside `dim`'s step: positions within a run move as slots do.
      } else if (segment.step % group == 0) {
        // A dimension outside `dim`'s groups: every distance shrinks by `dim`'s size.
        f = {f.period / size, f.first / size, f.width / size, f.delta / size, f.multiplicity};
      } else {
        return std::nullopt;  // groups that interleave with dim's: not a mixed radix
      }
    }
    out.Add(segment.weight, std::move(families));
  }
  return out;
}

double RunCrossings::Bytes(std::span<const std::pair<int32_t, int>> runs) const {
  double bytes = 0;
  for (const Segment& segment : segments_) {
    int64_t crossing = 0;
    for (size_t i = 0; i < segment.families.size(); ++i) {
      const Family& f = segment.families[i];
      int64_t within = 0;
      int64_t lo = 0;
      for (const auto& run : runs) {
        within += EdgesWithin(f, lo, lo + run.second);
        lo += run.second;
      }
      crossing += f.multiplicity * (segment.totals[i] - within);
    }
    bytes = AddRepeated(bytes, segment.weight, crossing);
  }
  return bytes;
}

}  // namespace topoplace::sched
