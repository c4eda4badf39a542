// The job's node-level communication graph, the cost model the topoplace policy ranks
// multi-block layouts by: an edge per pair of node slots whose ranks talk at a fixed node
// distance (dimensions whose stride is a multiple of gpus_per_node), weighted by the bytes
// per iteration between them. Dimensions that stay inside a node, or straddle nodes
// irregularly, are left out: the graph ranks layouts cheaply; the engine's full traffic
// evaluation gives the real numbers. For node-aligned dimensions the estimate is exact.
//
//   const NodeGraph graph = BuildNodeGraph(layout, traffic, job.gpus_per_node, nodes);
//   double bytes = CrossBlockBytes(graph, node_block);   // node_block[k]: block of slot k
//
// The edges are not listed: a node-aligned dimension puts node slot k at coordinate
// (k / step) % size, so its edges join runs of `step` consecutive slots to the runs one
// or more coordinates away, and crossings are counted by comparing those runs (a loop the
// compiler vectorises).
#ifndef TOPOPLACE_SCHEDULER_TRAFFIC_NODE_GRAPH_H_
#define TOPOPLACE_SCHEDULER_TRAFFIC_NODE_GRAPH_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "scheduler/mapping/rank_layout.h"
#include "scheduler/traffic/traffic_model.h"

namespace topoplace::sched {

// The edges of one dimension's pattern, all of one weight.
struct NodeGraph {
  struct Segment {
    Pattern pattern;
    int step = 1;       // node slots between consecutive coordinates of the dimension
    int size = 1;       // coordinates of the dimension
    double weight = 0;  // bytes per iteration of each edge
  };
  int nodes = 0;
  std::vector<Segment> segments;
};

// The graph of a job of `nodes` node slots of `gpus_per_node` GPUs each.
NodeGraph BuildNodeGraph(const RankLayout& layout, const TrafficModel& traffic, int gpus_per_node,
                         int nodes);

// A segment's edges as families: an edge from every slot p in [0, nodes) with
// p mod period in [first, first + width) to slot p + delta. A ring has an edge from every
// slot to its successor (the last coordinate wraps to the first: two families), a chain
// the same without the wrap (one), an all-to-all one between every two coordinates of a
// group (a family per pair, counted twice: once each way): the edges the rank-level
// pattern induces. The one definition of the patterns that CrossingEdges, RunCrossings
// and the candidate sketch's per-node sends count with.
struct EdgeFamily {
  int64_t period = 1;
  int64_t first = 0;
  int64_t width = 0;
  int64_t delta = 0;
  int multiplicity = 1;    // edges per (p, p + delta): 2 for an all-to-all pair
  bool both_send = false;  // both ends send over the edge (chain, all-to-all), not ring
};
// A ring's two families or a chain's one stay inline (the sketch and the run counts ask
// for them per segment and per candidate); an all-to-all's pairs go to the heap.
using EdgeFamilyList = absl::InlinedVector<EdgeFamily, 2>;
EdgeFamilyList EdgeFamilies(const NodeGraph::Segment& segment);

// Edges of `segment` whose two node slots sit in different blocks (node_block[k]: block of
// slot k), over the complete groups of node_block (step * size slots each).
int64_t CrossingEdges(const NodeGraph::Segment& segment, std::span<const int32_t> node_block);

// Bytes per iteration of `graph` that cross blocks. Books each segment's crossing edges
// with AddRepeated: bit for bit the sum of adding each crossing edge's bytes in edge order.
double CrossBlockBytes(const NodeGraph& graph, std::span<const int32_t> node_block);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_TRAFFIC_NODE_GRAPH_H_
