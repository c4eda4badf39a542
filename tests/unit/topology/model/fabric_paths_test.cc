// The path view (topology/model/fabric_paths.h): on a hand-built two-tier fabric the
// shortest paths and their cables are counted and listed per hop, a link that is down is
// left out, an uncabled NIC has none; on every reference fabric the searches' switch hops
// are those of the tier model (Fabric::NicTier) for pairs at every tier.
#include "topology/model/fabric_paths.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "topology/generate/reference_fabrics.h"
#include "topology/model/fabric_builder.h"

namespace topoplace {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Hosts a and b (one NIC each) under leaves A and B; A has 2 cables to spine 0 and 1 to
// spine 1, B 1 to spine 0 and 3 to spine 1: 2 x 1 + 1 x 3 = 5 paths through the spines.
// Host c has a NIC without a cable.
struct TwoTier {
  explicit TwoTier(LinkState a_to_s1 = LinkState::kUp) {
    FabricBuilder b("two-tier", 1);
    const auto host = [&b](const std::string& name) {
      const HostId h = *b.AddHost(name);
      const NicId nic = *b.AddNic(h, "mlx5_0", 400);
      EXPECT_TRUE(b.AddGpu(h, 0, nic).ok());
      return nic;
    };
    a = host("a");
    bn = host("b");
    c = host("c");
    const SwitchId leaf_a = *b.AddSwitch("leaf-a"), leaf_b = *b.AddSwitch("leaf-b");
    const SwitchId s0 = *b.AddSwitch("spine-0"), s1 = *b.AddSwitch("spine-1");
    const auto cable = [&b](Endpoint x, Endpoint y, int count, LinkState state) {
      return *b.AddLink(x, y, {.speed_gbps = 400, .count = count, .state = state});
    };
    nic_a = cable(NicEnd(a), SwitchEnd(leaf_a), 1, LinkState::kUp);
    nic_b = cable(NicEnd(bn), SwitchEnd(leaf_b), 1, LinkState::kUp);
    a_s0 = cable(SwitchEnd(leaf_a), SwitchEnd(s0), 2, LinkState::kUp);
    a_s1 = cable(SwitchEnd(leaf_a), SwitchEnd(s1), 1, a_to_s1);
    b_s0 = cable(SwitchEnd(leaf_b), SwitchEnd(s0), 1, LinkState::kUp);
    b_s1 = cable(SwitchEnd(leaf_b), SwitchEnd(s1), 3, LinkState::kUp);
    fabric = *std::move(b).Build();
  }
  FabricPtr fabric;
  NicId a = -1, bn = -1, c = -1;
  LinkId nic_a = -1, nic_b = -1, a_s0 = -1, a_s1 = -1, b_s0 = -1, b_s1 = -1;
};

TEST(FabricPathsTest, CountsEachCableOfEachShortestPathAndListsTheLinksOfEachHop) {
  const TwoTier t;
  const NicPaths p = ShortestNicPaths(BuildFabricGraph(*t.fabric), *t.fabric, t.a, t.bn);
  EXPECT_EQ(p.switch_hops, 3);
  EXPECT_EQ(p.equal_cost_paths, 5);
  EXPECT_THAT(p.hops, ElementsAre(ElementsAre(t.nic_a), ElementsAre(t.a_s0, t.a_s1),
                                  ElementsAre(t.b_s0, t.b_s1), ElementsAre(t.nic_b)));
}

TEST(FabricPathsTest, ALinkThatIsDownIsNoPath) {
  const TwoTier t(LinkState::kDown);
  const NicPaths p = ShortestNicPaths(BuildFabricGraph(*t.fabric), *t.fabric, t.a, t.bn);
  EXPECT_EQ(p.switch_hops, 3);
  EXPECT_EQ(p.equal_cost_paths, 2);  // the two cables to spine 0
  EXPECT_THAT(p.hops, ElementsAre(ElementsAre(t.nic_a), ElementsAre(t.a_s0), ElementsAre(t.b_s0),
                                  ElementsAre(t.nic_b)));
}

TEST(FabricPathsTest, AnUncabledNicHasNoPathAndANicItselfOne) {
  const TwoTier t;
  const FabricGraphView view = BuildFabricGraph(*t.fabric);
  const NicPaths none = ShortestNicPaths(view, *t.fabric, t.a, t.c);
  EXPECT_EQ(none.switch_hops, -1);
  EXPECT_EQ(none.equal_cost_paths, 0);
  EXPECT_THAT(none.hops, IsEmpty());
  const NicPaths self = ShortestNicPaths(view, *t.fabric, t.a, t.a);
  EXPECT_EQ(self.switch_hops, 0);
  EXPECT_EQ(self.equal_cost_paths, 1);
}

// From NIC 0, NICs spread over the fabric (the next one, then strides across it), so that
// pairs under one leaf, across a block, across pods and across rails all come up.
std::vector<NicId> Partners(const Fabric& fabric) {
  const NicId nics = static_cast<NicId>(fabric.nics().size());
  std::vector<NicId> partners = {0, 1};
  for (NicId stride : {7, 63, 511, 4095, 32767}) {
    if (stride < nics) partners.push_back(stride);
  }
  partners.push_back(nics / 2);
  partners.push_back(nics - 1);
  return partners;
}

TEST(FabricPathsTest, OnEveryReferenceFabricTheSearchesClimbAsHighAsTheTierModelSays) {
  int fabrics = 0;
  for (const std::string& name : PresetNames()) {
    if (name == "clos3-100k") continue;  // the same generator as clos3-4k, 25x the size
    ++fabrics;
    const FabricPtr fabric = *GeneratePreset(name);
    const FabricGraphView view = BuildFabricGraph(*fabric);
    std::vector<int> seen_tiers;
    for (NicId to : Partners(*fabric)) {
      const NicPaths p = ShortestNicPaths(view, *fabric, 0, to);
      const Tier tier = fabric->NicTier(0, to);
      const int expected = to == 0 ? 0 : SwitchHops(tier);
      EXPECT_EQ(p.switch_hops, expected)
          << name << ": NIC 0 to NIC " << to << " (" << TierName(tier) << ")";
      EXPECT_EQ(p.equal_cost_paths > 0, expected >= 0) << name << " NIC " << to;
      seen_tiers.push_back(static_cast<int>(tier));
    }
    EXPECT_GE(std::set<int>(seen_tiers.begin(), seen_tiers.end()).size(), 2u) << name;
  }
  EXPECT_GE(fabrics, 5);
}

}  // namespace
}  // namespace topoplace
