#include "scheduler/traffic/run_crossings.h"

#include <algorithm>
#include <cstdlib>

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

std::optional<RunCrossings::AllPairs> RunCrossings::AsAllPairs(const EdgeFamilyList& families) {
  if (families.empty()) return std::nullopt;
  AllPairs p{families[0].period, families[0].width, 0, families[0].multiplicity};
  while (p.size * (p.size - 1) / 2 < static_cast<int64_t>(families.size())) ++p.size;
  if (p.stride <= 0 || p.size * (p.size - 1) / 2 != static_cast<int64_t>(families.size()) ||
      p.period != p.size * p.stride) {
    return std::nullopt;
  }
  size_t i = 0;
  for (int64_t a = 0; a < p.size; ++a) {
    for (int64_t b = a + 1; b < p.size; ++b) {
      const EdgeFamily& f = families[i++];
      if (f.period != p.period || f.first != a * p.stride || f.width != p.stride ||
          f.delta != (b - a) * p.stride || f.multiplicity != p.multiplicity) {
        return std::nullopt;
      }
    }
  }
  return p;
}

int64_t RunCrossings::PairsInGroup(const AllPairs& p, int64_t x0, int64_t x1) {
  // At offset o the run holds the coordinates k with x0 <= k * stride + o < x1: d of them,
  // one more where o < r1 only, one fewer where o < r0 only (x = q * stride + r).
  const int64_t q0 = x0 / p.stride, r0 = x0 % p.stride;
  const int64_t q1 = x1 / p.stride, r1 = x1 % p.stride;
  const int64_t d = q1 - q0;
  const auto pairs = [](int64_t c) { return c * (c - 1) / 2; };
  return (p.stride - std::abs(r1 - r0)) * pairs(d) + std::max(int64_t{0}, r1 - r0) * pairs(d + 1) +
         std::max(int64_t{0}, r0 - r1) * pairs(d - 1);
}

int64_t RunCrossings::PairsWithin(const AllPairs& p, int64_t lo, int64_t hi) {
  if (hi <= lo) return 0;
  const int64_t g0 = lo / p.period, g1 = (hi - 1) / p.period;
  if (g0 == g1) return PairsInGroup(p, lo - g0 * p.period, hi - g0 * p.period);
  const int64_t whole = p.stride * (p.size * (p.size - 1) / 2);  // a whole group's pairs
  return PairsInGroup(p, lo - g0 * p.period, p.period) + (g1 - g0 - 1) * whole +
         PairsInGroup(p, 0, hi - g1 * p.period);
}

void RunCrossings::Add(double weight, EdgeFamilyList families) {
  Segment segment{weight, std::move(families), {}, 0, std::nullopt};
  for (const EdgeFamily& f : segment.families) {
    segment.totals.push_back(EdgesWithin(f, 0, nodes_));
    segment.total += segment.totals.back();
  }
  segment.all_pairs = AsAllPairs(segment.families);
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
    if (segment.all_pairs) {
      // The same count as the per-family loop below: every family has one multiplicity.
      int64_t within = 0;
      int64_t lo = 0;
      for (const auto& run : runs) {
        within += PairsWithin(*segment.all_pairs, lo, lo + run.second);
        lo += run.second;
      }
      bytes = AddRepeated(bytes, segment.weight,
                          segment.all_pairs->multiplicity * (segment.total - within));
      continue;
    }
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
