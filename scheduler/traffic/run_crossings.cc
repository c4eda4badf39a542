#include "scheduler/traffic/run_crossings.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "scheduler/traffic/repeated_add.h"

namespace topoplace::sched {
namespace {

absl::Status Untiled(int64_t step, int64_t size, int64_t nodes) {
  return absl::InvalidArgumentError(
      absl::StrCat("groups of ", step, " x ", size, " slots do not tile ", nodes, " slots"));
}

}  // namespace

int64_t RunCrossings::StartsBelow(const EdgeFamily& f, int64_t x) {
  return (x / f.period) * f.width + std::clamp(x % f.period - f.first, int64_t{0}, f.width);
}

int64_t RunCrossings::EdgesWithin(const EdgeFamily& f, int64_t lo, int64_t hi) {
  // Starts p with p and p + delta both in [lo, hi).
  const int64_t from = std::max(lo, lo - f.delta);
  const int64_t to = std::min(hi, hi - f.delta);
  return to > from ? StartsBelow(f, to) - StartsBelow(f, from) : 0;
}

void RunCrossings::Add(double weight, EdgeFamilyList families) {
  Segment segment{weight, std::move(families), {}};
  for (const EdgeFamily& f : segment.families) {
    segment.totals.push_back(EdgesWithin(f, 0, nodes_));
  }
  segments_.push_back(std::move(segment));
}

absl::StatusOr<RunCrossings> RunCrossings::InNodeOrder(const NodeGraph& graph) {
  RunCrossings out;
  out.nodes_ = graph.nodes;
  out.segments_.reserve(graph.segments.size());
  for (const NodeGraph::Segment& segment : graph.segments) {
    if (graph.nodes % (static_cast<int64_t>(segment.step) * segment.size) != 0) {
      return Untiled(segment.step, segment.size, graph.nodes);
    }
    out.Add(segment.weight, EdgeFamilies(segment));
  }
  return out;
}

absl::StatusOr<RunCrossings> RunCrossings::GroupedBy(const NodeGraph& graph,
                                                     const RankLayout& layout, Dim dim,
                                                     int gpus_per_node) {
  const int64_t nodes = graph.nodes;
  const int64_t size = layout.size(dim);
  if (gpus_per_node <= 0 || size <= 1 || layout.stride(dim) % gpus_per_node != 0) {
    return absl::InvalidArgumentError(absl::StrCat(DimName(dim), " is not node-aligned: size ",
                                                   size, ", stride ", layout.stride(dim), ", ",
                                                   gpus_per_node, " GPUs per node"));
  }
  // Slot k = hi * group + coord * step + lo (lo < step) sits at position
  // coord * unit + (hi * step + lo): its index among the slots of its coordinate.
  const int64_t step = layout.stride(dim) / gpus_per_node;
  const int64_t group = step * size;
  if (nodes % group != 0) {
    return Untiled(step, size, nodes);
  }
  const int64_t unit = nodes / size;
  RunCrossings out;
  out.nodes_ = graph.nodes;
  out.segments_.reserve(graph.segments.size());
  for (const NodeGraph::Segment& segment : graph.segments) {
    const int64_t period = static_cast<int64_t>(segment.step) * segment.size;
    if (nodes % period != 0) return Untiled(segment.step, segment.size, nodes);
    EdgeFamilyList families = EdgeFamilies(segment);
    if (segment.step == step && segment.size == size) {
      // `dim` itself: coordinate c's slots are the run [c * unit, (c + 1) * unit), and an
      // edge keeps its index within the run.
      const int64_t scale = unit / step;
      for (EdgeFamily& f : families) {
        f = {nodes, f.first * scale, f.width * scale, f.delta * scale, f.multiplicity, f.both_send};
      }
    } else if (segment.step % group == 0) {
      // A dimension outside `dim`'s groups: every distance shrinks by `dim`'s size.
      for (EdgeFamily& f : families) {
        f = {f.period / size, f.first / size, f.width / size,
             f.delta / size,  f.multiplicity, f.both_send};
      }
    } else if (step % period != 0) {
      // Not inside `dim`'s step either (there positions within a run move as slots do).
      return absl::InvalidArgumentError(absl::StrCat("groups of ", segment.step, " x ",
                                                     segment.size, " slots interleave with ",
                                                     DimName(dim), "'s"));
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
      const EdgeFamily& f = segment.families[i];
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
