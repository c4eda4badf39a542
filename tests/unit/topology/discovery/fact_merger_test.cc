#include "topology/discovery/fact_merger.h"

#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "topology/discovery/fabric_import.h"

namespace topoplace::discovery {
namespace {

using ::testing::HasSubstr;

LinkFact Cable(PortRef a, PortRef b, std::string origin, double gbps = 100) {
  LinkFact link;
  link.a = std::move(a);
  link.b = std::move(b);
  link.speed_gbps = gbps;
  link.origin = std::move(origin);
  return link;
}

PortRef Nic(std::string host, std::string nic, NodeRole role = NodeRole::kHost) {
  return PortRef{std::move(host), std::move(nic), role};
}
PortRef Port(std::string sw, std::string port, NodeRole role = NodeRole::kSwitch) {
  return PortRef{std::move(sw), std::move(port), role};
}

FabricFacts Links(std::vector<LinkFact> links) {
  FabricFacts facts;
  facts.links = std::move(links);
  return facts;
}

TEST(FactMerger, BothSidesOfACableGiveOneLink) {
  FactMerger merger;
  merger.Add(Links({Cable(Nic("h1", "eth0"), Port("leaf", "swp1"), "h1.json")}));
  merger.Add(Links({Cable(Port("leaf", "swp1"), Nic("h1", "eth0"), "leaf.json")}));
  const FabricFacts facts = std::move(merger).Resolve();
  EXPECT_EQ(facts.links.size(), 1u);
  EXPECT_TRUE(facts.warnings.empty()) << absl::StrJoin(facts.warnings, "\n");
}

TEST(FactMerger, PortLinkedToTwoPeersKeepsTheFirstAndWarns) {
  FactMerger merger;
  merger.Add(Links({Cable(Nic("h1", "eth0"), Port("leaf", "swp1"), "a.json"),
                    Cable(Nic("h2", "eth0"), Port("leaf", "swp1"), "b.json")}));
  const FabricFacts facts = std::move(merger).Resolve();
  ASSERT_EQ(facts.links.size(), 1u);
  EXPECT_EQ(facts.links[0].a.node, "h1");
  EXPECT_THAT(absl::StrJoin(facts.warnings, "\n"),
              HasSubstr("leaf:swp1 is linked twice: to h1/eth0 (a.json) and to h2/eth0 (b.json)"));
}

TEST(FactMerger, NodeOfUnknownKindCabledToAHostIsASwitch) {
  FactMerger merger;
  merger.Add(Links({Cable(Nic("h1", "eth0"), Port("mystery", "p1", NodeRole::kUnknown), "x")}));
  const FabricFacts facts = std::move(merger).Resolve();
  ASSERT_EQ(facts.switches.size(), 1u);
  EXPECT_EQ(facts.switches[0].name, "mystery");
}

TEST(FactMerger, NameThatIsAHostAndASwitchKeepsTheHostAndWarns) {
  FabricFacts a, b;
  a.hosts.push_back(HostFact{.name = "x", .origin = "a.json"});
  b.switches.push_back(SwitchFact{.name = "x", .origin = "b.txt:3"});
  FactMerger merger;
  merger.Add(std::move(a));
  merger.Add(std::move(b));
  const FabricFacts facts = std::move(merger).Resolve();
  EXPECT_TRUE(facts.switches.empty());
  EXPECT_THAT(absl::StrJoin(facts.warnings, "\n"), HasSubstr("x is a host (a.json) and a switch"));
}

TEST(FactMerger, DisagreeingLinkStatesKeepTheWorseAndWarn) {
  LinkFact down = Cable(Port("leaf", "swp9"), Port("spine", "swp1"), "spine.json");
  down.state = LinkState::kDown;
  FactMerger merger;
  merger.Add(Links({Cable(Port("leaf", "swp9"), Port("spine", "swp1"), "leaf.json")}));
  merger.Add(Links({down}));
  const FabricFacts facts = std::move(merger).Resolve();
  ASSERT_EQ(facts.links.size(), 1u);
  EXPECT_EQ(facts.links[0].state, LinkState::kDown);
  EXPECT_THAT(absl::StrJoin(facts.warnings, "\n"), HasSubstr("kept the worse"));
}

TEST(FactMerger, NicsAreOrderedNaturally) {
  FactMerger merger;
  merger.Add(Links({Cable(Nic("h1", "mlx5_10"), Port("l10", "1"), "x"),
                    Cable(Nic("h1", "mlx5_2"), Port("l2", "1"), "x")}));
  const FabricFacts facts = std::move(merger).Resolve();
  ASSERT_EQ(facts.hosts.size(), 1u);
  ASSERT_EQ(facts.hosts[0].nics.size(), 2u);
  EXPECT_EQ(facts.hosts[0].nics[0].name, "mlx5_2");
}

TEST(NaturalLess, NumbersCompareByValue) {
  EXPECT_TRUE(NaturalLess("n2", "n10"));
  EXPECT_FALSE(NaturalLess("n10", "n2"));
  EXPECT_TRUE(NaturalLess("mlx5_9", "mlx5_10"));
  EXPECT_TRUE(NaturalLess("a", "b"));
  EXPECT_FALSE(NaturalLess("x", "x"));
}

TEST(ApplyFacts, ParallelSwitchCablesBecomeOneLinkWithACount) {
  std::vector<FabricFacts> facts;
  facts.push_back(Links({Cable(Nic("h1", "eth0"), Port("leaf", "1"), "x"),
                         Cable(Port("leaf", "9"), Port("spine", "1"), "x"),
                         Cable(Port("leaf", "10"), Port("spine", "2"), "x")}));
  absl::StatusOr<FabricPtr> fabric = BuildFabricFromFacts(std::move(facts), "t");
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  ASSERT_EQ((*fabric)->links().size(), 2u);
  EXPECT_EQ((*fabric)->links()[1].count, 2);
  EXPECT_EQ((*fabric)->links()[1].bandwidth_gbps(), 200);
}

}  // namespace
}  // namespace topoplace::discovery
