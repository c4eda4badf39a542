// The Boost.Graph adjacency list behind a Fabric. Vertices are hosts, GPUs, NICs and
// switches (in that order, each block contiguous); edges are network links (NIC-switch,
// switch-switch) and attachment edges (host-GPU, host-NIC) that carry no bandwidth.
//
// Only topology/ code that runs graph algorithms should need this header; everything
// else reads the Fabric's typed tables.
#ifndef TOPOPLACE_TOPOLOGY_MODEL_FABRIC_GRAPH_H_
#define TOPOPLACE_TOPOLOGY_MODEL_FABRIC_GRAPH_H_

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>

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

}  // namespace topoplace

#endif  // TOPOPLACE_TOPOLOGY_MODEL_FABRIC_GRAPH_H_
