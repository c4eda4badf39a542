#include "topology/render/fabric_dot.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "topology/discovery/fabric_import.h"

namespace topoplace::render {
namespace {

using ::testing::HasSubstr;

FabricPtr LldpFixtureFabric() {
  absl::StatusOr<FabricPtr> fabric =
      discovery::ImportFabric({.lldp = {std::string(TP_SHARED_FIXTURES) + "/lldp"}}, "lab");
  EXPECT_TRUE(fabric.ok()) << fabric.status();
  return fabric.ok() ? *fabric : nullptr;
}

TEST(FabricDot, DrawsSwitchesHostsBlocksAndRailColouredCables) {
  FabricPtr fabric = LldpFixtureFabric();
  ASSERT_NE(fabric, nullptr);
  const std::string dot = FabricToDot(*fabric);
  EXPECT_THAT(dot, HasSubstr("graph \"lab\" {"));
  EXPECT_THAT(dot, HasSubstr("\"sw:tp-sw1\" [shape=box"));
  EXPECT_THAT(dot, HasSubstr("subgraph \"cluster_block0\""));
  EXPECT_THAT(dot, HasSubstr("\"host:tp-h1\" -- \"sw:tp-sw1\" [color="));
}

TEST(FabricDot, HighlightedHostsAreFilled) {
  FabricPtr fabric = LldpFixtureFabric();
  ASSERT_NE(fabric, nullptr);
  const std::string dot = FabricToDot(*fabric, {.highlight = {"tp-h2"}});
  EXPECT_THAT(dot, HasSubstr("\"host:tp-h2\" [shape=box, label=\"tp-h2\\n0 GPU\", style=filled"));
  EXPECT_THAT(dot, ::testing::Not(HasSubstr("\"tp-h1\\n0 GPU\", style=filled")));
}

}  // namespace
}  // namespace topoplace::render
