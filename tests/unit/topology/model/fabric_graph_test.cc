#include "topology/model/fabric_graph.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "topology/generate/reference_fabrics.h"
#include "topology/model/fabric_builder.h"

namespace topoplace {
namespace {

TEST(FabricGraph, HasAVertexPerHostGpuNicAndSwitchAndAnEdgePerAttachmentAndLink) {
  FabricBuilder b("t", 1);
  const HostId h = *b.AddHost("n1");
  const NicId nic = *b.AddNic(h, "mlx5_0", 400);
  ASSERT_TRUE(b.AddGpu(h, 1, nic).ok());
  ASSERT_TRUE(b.AddGpu(h, 0, nic).ok());
  const SwitchId s = *b.AddSwitch("leaf");
  ASSERT_TRUE(b.AddLink(NicEnd(nic), SwitchEnd(s), {.speed_gbps = 400}).ok());
  const FabricPtr fabric = *std::move(b).Build();

  const FabricGraphView view = BuildFabricGraph(*fabric);
  // host + 2 GPUs + 1 NIC + 1 switch; 2 GPU and 1 NIC attachment edges + 1 link.
  EXPECT_EQ(boost::num_vertices(view.graph), 5u);
  EXPECT_EQ(boost::num_edges(view.graph), 4u);
  EXPECT_EQ(view.graph[view.VertexOfSwitch(s)].kind, VertexKind::kSwitch);
  EXPECT_EQ(view.graph[view.VertexOfNic(nic)].id, nic);
  const auto [edge, found] = boost::edge(view.VertexOfNic(nic), view.VertexOfSwitch(s), view.graph);
  ASSERT_TRUE(found);
  EXPECT_EQ(view.graph[edge].link, 0);
}

TEST(FabricGraph, EveryLinkOfAReferenceFabricIsOneEdgeBetweenItsEnds) {
  const FabricPtr fabric = *GeneratePreset("superpod-4su");
  const FabricGraphView view = BuildFabricGraph(*fabric);
  EXPECT_EQ(boost::num_vertices(view.graph), fabric->hosts().size() + fabric->gpus().size() +
                                                 fabric->nics().size() + fabric->switches().size());
  EXPECT_EQ(boost::num_edges(view.graph),
            fabric->gpus().size() + fabric->nics().size() + fabric->links().size());
  std::set<int32_t> links;
  for (auto [e, end] = boost::edges(view.graph); e != end; ++e) {
    if (view.graph[*e].link >= 0) links.insert(view.graph[*e].link);
  }
  EXPECT_EQ(links.size(), fabric->links().size());
}

}  // namespace
}  // namespace topoplace
