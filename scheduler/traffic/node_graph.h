// The job's node-level communication graph, the cost model the topoplace policy ranks
// multi-block layouts by: an edge per pair of node slots whose ranks talk at a fixed node
// distance (dimensions whose stride is a multiple of gpus_per_node), weighted by the bytes
// per iteration between them. Dimensions that stay inside a node, or straddle nodes
// irregularly, are left out: the graph ranks layouts cheaply; the engine's full traffic
// evaluation gives the real numbers. For node-aligned dimensions the estimate is exact.
//
//   const NodeGraph graph = BuildNodeGraph(layout, traffic, job.gpus_per_node, nodes);
//   double bytes = CrossBlockBytes(graph, node_block);   // node_block[k]: block of slot k
#ifndef TOPOPLACE_SCHEDULER_TRAFFIC_NODE_GRAPH_H_
#define TOPOPLACE_SCHEDULER_TRAFFIC_NODE_GRAPH_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "scheduler/mapping/rank_layout.h"
#include "scheduler/traffic/traffic_model.h"

namespace topoplace::sched {

// Edges come in segments of one dimension, whose edges all weigh the same.
struct NodeGraph {
  struct Segment {
    size_t end;     // edges [end of the previous segment, end)
    double weight;  // bytes per iteration of each of its edges
  };
  std::vector<int32_t> from, to;
  std::vector<Segment> segments;
};

// The graph of a job of `nodes` node slots of `gpus_per_node` GPUs each.
NodeGraph BuildNodeGraph(const RankLayout& layout, const TrafficModel& traffic, int gpus_per_node,
                         int nodes);

// Bytes per iteration of `graph` that cross blocks when node slot k sits in
// node_block[k]. Counts crossing edges per segment and books them with AddRepeated: bit
// for bit the sum of adding each crossing edge's bytes in edge order.
double CrossBlockBytes(const NodeGraph& graph, std::span<const int32_t> node_block);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_TRAFFIC_NODE_GRAPH_H_
