#include "topology/model/fabric_graph.h"

namespace topoplace {

FabricGraphView BuildFabricGraph(const Fabric& fabric) {
  FabricGraphView view;
  view.gpu_base = fabric.hosts().size();
  view.nic_base = view.gpu_base + fabric.gpus().size();
  view.switch_base = view.nic_base + fabric.nics().size();
  FabricGraph& graph = view.graph;
  graph = FabricGraph(view.switch_base + fabric.switches().size());
  const auto set_vertex = [&graph](FabricVertex v, VertexKind kind, size_t id) {
    graph[v] = FabricVertexProps{kind, static_cast<int32_t>(id)};
  };
  for (size_t i = 0; i < fabric.hosts().size(); ++i) {
    set_vertex(view.VertexOfHost(i), VertexKind::kHost, i);
  }
  for (size_t i = 0; i < fabric.gpus().size(); ++i) {
    set_vertex(view.VertexOfGpu(i), VertexKind::kGpu, i);
    boost::add_edge(view.VertexOfHost(fabric.gpus()[i].host), view.VertexOfGpu(i),
                    FabricEdgeProps{}, graph);
  }
  for (size_t i = 0; i < fabric.nics().size(); ++i) {
    set_vertex(view.VertexOfNic(i), VertexKind::kNic, i);
    boost::add_edge(view.VertexOfHost(fabric.nics()[i].host), view.VertexOfNic(i),
                    FabricEdgeProps{}, graph);
  }
  for (size_t i = 0; i < fabric.switches().size(); ++i) {
    set_vertex(view.VertexOfSwitch(i), VertexKind::kSwitch, i);
  }
  const auto vertex_of = [&view](Endpoint e) {
    return e.kind == Endpoint::Kind::kNic ? view.VertexOfNic(e.id) : view.VertexOfSwitch(e.id);
  };
  for (size_t i = 0; i < fabric.links().size(); ++i) {
    boost::add_edge(vertex_of(fabric.links()[i].a), vertex_of(fabric.links()[i].b),
                    FabricEdgeProps{static_cast<int32_t>(i)}, graph);
  }
  return view;
}

}  // namespace topoplace
