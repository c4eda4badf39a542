// A node graph's cross-block bytes for layouts in which every block takes one run of
// consecutive positions of a fixed order of the node slots: how the topoplace policy's
// block packing lays a job out (block_packing.h: a cut's node order, blocks filled in
// sequence). The bytes come from the runs' bounds alone, in O(runs x edge families), where
// CrossBlockBytes walks every node slot of every segment: the multi-block search ranks a
// dozen or more layouts of thousands of slots per placement.
//
//   std::optional<RunCrossings> rc = RunCrossings::GroupedBy(graph, layout, Dim::kPp, g);
//   double bytes = rc->Bytes(seq);  // == CrossBlockBytes(graph, NodeBlocks(seq, pp cut))
//
// How: in either order, each segment's edges are a few families, an edge from every
// position p with p mod period in [first, first + width) to p + delta (a chain, a ring's
// wrap, one pair of coordinates of an all-to-all). An edge crosses unless both ends fall
// in one run, and the edges inside a run [L, R) of one family are counted with two floor
// divisions.
//
// Immutable after construction; thread-safe.
#ifndef TOPOPLACE_SCHEDULER_TRAFFIC_RUN_CROSSINGS_H_
#define TOPOPLACE_SCHEDULER_TRAFFIC_RUN_CROSSINGS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "scheduler/mapping/rank_layout.h"
#include "scheduler/traffic/node_graph.h"

namespace topoplace::sched {

class RunCrossings {
 public:
  // Positions in node order: slot k at position k (block_packing's PlainCut).
  // nullopt if some segment's groups do not tile the slots (CrossingEdges then skips the
  // incomplete last group, which this count does not model).
  static std::optional<RunCrossings> InNodeOrder(const NodeGraph& graph);
  // Positions grouped by the slots' coordinate of `dim`: coordinate 0's slots first, in
  // node order, then coordinate 1's, and so on (block_packing's MakeCut). nullopt when
  // `dim` is not node-aligned in `layout`, or a segment's groups do not nest with `dim`'s
  // (then the caller counts slot by slot).
  static std::optional<RunCrossings> GroupedBy(const NodeGraph& graph, const RankLayout& layout,
                                               Dim dim, int gpus_per_node);

  // CrossBlockBytes(graph, node_block) when run i, runs[i].second consecutive positions,
  // is block runs[i].first: bit for bit (the same crossing count per segment, booked with
  // AddRepeated in segment order). Preconditions: the run lengths sum to graph.nodes and
  // no block appears in two runs.
  double Bytes(std::span<const std::pair<int32_t, int>> runs) const;

 private:
  // Edges from every position p in [0, nodes) with p mod period in [first, first + width)
  // to p + delta, each counted `multiplicity` times.
  struct Family {
    int64_t period = 1;
    int64_t first = 0;
    int64_t width = 0;
    int64_t delta = 0;
    int multiplicity = 1;
  };
  struct Segment {
    double weight = 0;
    std::vector<Family> families;
    std::vector<int64_t> totals;  // per family: its edges among all positions
  };

  // Starts of `f` in [0, x).
  static int64_t StartsBelow(const Family& f, int64_t x);
  // Edges of `f` with both ends in [lo, hi).
  static int64_t EdgesWithin(const Family& f, int64_t lo, int64_t hi);
  // The families of `segment` in node order; empty if its groups do not tile `nodes`.
  static std::vector<Family> NodeOrderFamilies(const NodeGraph::Segment& segment, int nodes);
  void Add(double weight, std::vector<Family> families);

  int nodes_ = 0;
  std::vector<Segment> segments_;
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_TRAFFIC_RUN_CROSSINGS_H_
