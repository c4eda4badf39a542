// A node graph's cross-block bytes for layouts in which every block takes one run of
// consecutive positions of a fixed order of the node slots, which is how the topoplace
// policy lays a job over several blocks (its cuts fill blocks in sequence along an order
// of the slots). The bytes come from the runs' bounds alone, in O(runs x edge families),
// where CrossBlockBytes walks every node slot of every segment: the multi-block search
// ranks a dozen or more layouts of up to thousands of slots per placement.
//
//   absl::StatusOr<RunCrossings> rc = RunCrossings::GroupedBy(graph, layout, Dim::kPp, g);
//   double bytes = rc->Bytes(runs);  // == CrossBlockBytes(graph, block of every slot)
//
// How: in either order, a segment's edges are its EdgeFamilies (node_graph.h), each an
// edge from every position p with p mod period in [first, first + width) to p + delta. An
// edge crosses unless both ends fall in one run, and a family's edges inside a run
// [L, R) are counted with two floor divisions.
//
// Immutable after construction; thread-safe.
#ifndef TOPOPLACE_SCHEDULER_TRAFFIC_RUN_CROSSINGS_H_
#define TOPOPLACE_SCHEDULER_TRAFFIC_RUN_CROSSINGS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/mapping/rank_layout.h"
#include "scheduler/traffic/node_graph.h"

namespace topoplace::sched {

class RunCrossings {
 public:
  // Positions in node order: slot k at position k.
  // InvalidArgument if some segment's groups do not tile the graph's slots (CrossingEdges
  // would skip an incomplete last group, which this count does not model); a graph built
  // from a job for its job.nodes() slots always tiles.
  static absl::StatusOr<RunCrossings> InNodeOrder(const NodeGraph& graph);
  // Positions grouped by the slots' coordinate of `dim` (of their first rank): coordinate
  // 0's slots first, in node order, then coordinate 1's, and so on.
  // InvalidArgument when `dim` is not node-aligned in `layout` (its stride a multiple of
  // gpus_per_node, its size above 1), or the groups do not tile the slots or do not nest
  // with `dim`'s (a graph built from `layout` for its job.nodes() slots always nests).
  static absl::StatusOr<RunCrossings> GroupedBy(const NodeGraph& graph, const RankLayout& layout,
                                                Dim dim, int gpus_per_node);

  // CrossBlockBytes(graph, node_block) when run i, runs[i].second consecutive positions,
  // is block runs[i].first: bit for bit (the same crossing count per segment, booked with
  // AddRepeated in segment order). Preconditions: the run lengths sum to the graph's
  // slots and no block appears in two runs.
  double Bytes(std::span<const std::pair<int32_t, int>> runs) const;

 private:
  // A segment whose families are every pair of coordinates of groups of `size` (an
  // all-to-all, EdgeFamilies): positions g * period + k * stride + o for coordinates k <
  // size, offsets o < stride. Its edges inside a run are the pairs of the run's positions
  // that share a group and an offset, counted in O(1) per run instead of per family (an
  // expert-parallel group of 16 has 120 families).
  struct AllPairs {
    int64_t period = 0, stride = 0, size = 0;
    int multiplicity = 1;
  };
  struct Segment {
    double weight = 0;
    EdgeFamilyList families;                 // over positions
    absl::InlinedVector<int64_t, 2> totals;  // per family: its edges among all positions
    int64_t total = 0;                       // their sum
    std::optional<AllPairs> all_pairs;       // when the families are those of one
  };

  RunCrossings() = default;
  // Starts of `f` in [0, x).
  static int64_t StartsBelow(const EdgeFamily& f, int64_t x);
  // Edges of `f` with both ends in [lo, hi).
  static int64_t EdgesWithin(const EdgeFamily& f, int64_t lo, int64_t hi);
  // `families` as AllPairs, or nullopt when they are not every pair of a group's
  // coordinates in EdgeFamilies' order with one multiplicity.
  static std::optional<AllPairs> AsAllPairs(const EdgeFamilyList& families);
  // Pairs of positions in [lo, hi) that share a group and an offset (both ends of an
  // edge of `p`'s families), 0 <= lo <= hi.
  static int64_t PairsWithin(const AllPairs& p, int64_t lo, int64_t hi);
  // The same within one group: 0 <= x0 < x1 <= p.period, positions relative to it.
  static int64_t PairsInGroup(const AllPairs& p, int64_t x0, int64_t x1);
  void Add(double weight, EdgeFamilyList families);

  int nodes_ = 0;
  std::vector<Segment> segments_;
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_TRAFFIC_RUN_CROSSINGS_H_
