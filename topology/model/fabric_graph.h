// The fabric as a Boost.Graph adjacency list, built on demand for code that runs graph
// algorithms on it. Vertices are hosts, GPUs, NICs and switches (in that order, each kind
// contiguous, in its Fabric table's order); edges are network links (NIC-switch,
// switch-switch) and attachment edges (host-GPU, host-NIC) that carry no bandwidth.
//
// Only code that runs graph algorithms includes this header (and so Boost.Graph); every
// other reader uses the Fabric's typed tables. A Fabric does not keep a graph.
//
//   const FabricGraphView view = BuildFabricGraph(fabric);
//   boost::num_edges(view.graph);  view.VertexOfSwitch(s);
#ifndef TOPOPLACE_TOPOLOGY_MODEL_FABRIC_GRAPH_H_
#define TOPOPLACE_TOPOLOGY_MODEL_FABRIC_GRAPH_H_

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>

#include "topology/model/fabric.h"

namespace topoplace {

enum class VertexKind : uint8_t { kHost, kGpu, kNic, kSwitch };

struct FabricVertexProps {
  VertexKind kind = VertexKind::kHost;
  int32_t id = -1;  // index into the Fabric table of that kind
};

struct FabricEdgeProps {
  int32_t link = -1;  // index into Fabric::links(); -1 for an attachment edge
};

using FabricGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS,
                                          FabricVertexProps, FabricEdgeProps>;
using FabricVertex = boost::graph_traits<FabricGraph>::vertex_descriptor;

// A fabric's graph and where each kind's vertices start.
struct FabricGraphView {
  FabricGraph graph;
  FabricVertex gpu_base = 0;
  FabricVertex nic_base = 0;
  FabricVertex switch_base = 0;

  FabricVertex VertexOfHost(HostId id) const { return static_cast<FabricVertex>(id); }
  FabricVertex VertexOfGpu(GpuId id) const { return gpu_base + static_cast<FabricVertex>(id); }
  FabricVertex VertexOfNic(NicId id) const { return nic_base + static_cast<FabricVertex>(id); }
  FabricVertex VertexOfSwitch(SwitchId id) const {
    return switch_base + static_cast<FabricVertex>(id);
  }
};

// The graph of `fabric`: O(hosts + GPUs + NICs + switches + links).
FabricGraphView BuildFabricGraph(const Fabric& fabric);

}  // namespace topoplace

#endif  // TOPOPLACE_TOPOLOGY_MODEL_FABRIC_GRAPH_H_
