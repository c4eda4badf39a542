// Each phase of hierarchy inference on a few hand-made switches, NICs and hosts
// (hierarchy_inference_test.cc runs them together on generated fabrics).
#include "topology/model/hierarchy_phases.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace topoplace::hierarchy {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Endpoint Sw(int32_t id) { return {Endpoint::Kind::kSwitch, id}; }
Endpoint NicEnd(int32_t id) { return {Endpoint::Kind::kNic, id}; }
Link Cable(Endpoint a, Endpoint b, double gbps = 400) {
  return {.a = a, .b = b, .speed_gbps = gbps};
}

std::vector<Switch> Switches(int n) {
  std::vector<Switch> out(n);
  for (int i = 0; i < n; ++i) out[i].name = "sw" + std::to_string(i);
  return out;
}

// Host h has NICs 2h and 2h+1 (indexes 0 and 1).
void TwoNicHosts(int n, std::vector<Host>& hosts, std::vector<Nic>& nics) {
  for (int h = 0; h < n; ++h) {
    Host& host = hosts.emplace_back();
    host.name = "h" + std::to_string(h);
    host.nics = {2 * h, 2 * h + 1};
    for (int i = 0; i < 2; ++i) {
      Nic nic;
      nic.host = h;
      nic.name = "mlx5_" + std::to_string(i);
      nic.index = i;
      nics.push_back(nic);
    }
  }
}

TEST(HierarchyPhases, TheSwitchGraphHoldsSwitchLinksAndWhichSwitchesTouchANic) {
  const SwitchGraph g =
      ReadSwitchGraph(3, {Cable(NicEnd(0), Sw(0)), Cable(Sw(0), Sw(1)), Cable(Sw(2), Sw(1))});
  EXPECT_THAT(g.Neighbours(1), ElementsAre(0, 2));
  EXPECT_THAT(g.touches_nic, ElementsAre(true, false, false));
}

TEST(HierarchyPhases, TiersAreDistanceFromALeafAndUnreachableOrContradictedOnesAreNamed) {
  // leaf sw0 - spine sw1 - core sw2; sw3 is linked to nothing; sw1 declares tier 3.
  std::vector<Switch> sw = Switches(4);
  sw[1].declared_tier = 3;
  const SwitchGraph g =
      ReadSwitchGraph(4, {Cable(NicEnd(0), Sw(0)), Cable(Sw(0), Sw(1)), Cable(Sw(1), Sw(2))});
  Warnings w;
  EXPECT_EQ(InferTiers(g, sw, w), 3);
  EXPECT_EQ(sw[0].tier, 1);
  EXPECT_EQ(sw[1].tier, 2);
  EXPECT_EQ(sw[2].tier, 3);
  EXPECT_EQ(sw[3].tier, 0);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_THAT(w[0], HasSubstr("1 switches reach no host and are left out of the hierarchy: sw3"));
  EXPECT_THAT(w[1], HasSubstr("sw1 (declared 3, inferred 2)"));
}

TEST(HierarchyPhases, ANicKeepsItsFirstLeafAndAnUncabledOneHasNone) {
  std::vector<Host> hosts;
  std::vector<Nic> nics;
  TwoNicHosts(1, hosts, nics);
  Warnings w;
  FindNicLeaves({Cable(NicEnd(0), Sw(4)), Cable(Sw(5), NicEnd(0))}, hosts, nics, w);

  EXPECT_EQ(nics[0].leaf, 4);
  EXPECT_EQ(nics[1].leaf, -1);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_THAT(w[0], HasSubstr("cabled to more than one switch (first one used): h0/mlx5_0"));
  EXPECT_THAT(w[1], HasSubstr("not cabled to any switch: h0/mlx5_1"));
}

TEST(HierarchyPhases, ALeafsRailIsItsMajorityIndexAndACrossedNicTakesIt) {
  // Three hosts; NIC index 0 on leaf 0, index 1 on leaf 1, except h2's index-1 NIC, which
  // is cabled to leaf 0 (a crossed cable: leaf 0 stays rail 0, by majority).
  std::vector<Host> hosts;
  std::vector<Nic> nics;
  TwoNicHosts(3, hosts, nics);
  for (Nic& nic : nics) nic.leaf = nic.index;
  nics[5].leaf = 0;
  std::vector<Switch> sw = Switches(2);
  std::vector<Rail> rails;
  Warnings w;

  EXPECT_FALSE(AssignRails(hosts, sw, nics, rails, w));
  EXPECT_EQ(sw[0].rail, 0);
  EXPECT_EQ(sw[1].rail, 1);
  EXPECT_EQ(nics[5].rail, 0);
  ASSERT_EQ(rails.size(), 2u);
  EXPECT_THAT(rails[0].leaves, ElementsAre(0));
  EXPECT_THAT(w.back(), HasSubstr("h2/mlx5_1 on sw0 (rail 0; expected rail 1)"));
}

TEST(HierarchyPhases, HostsOfOneLeafSetFormABlockAndAHostMissingALeafJoinsIt) {
  // h0 and h1 reach leaves 0 and 1; h2 lost its NIC on leaf 1; h3 reaches leaves 2 and 3.
  std::vector<Host> hosts;
  std::vector<Nic> nics;
  TwoNicHosts(4, hosts, nics);
  const std::vector<SwitchId> leaf_of = {0, 1, 0, 1, 0, -1, 2, 3};
  for (size_t n = 0; n < nics.size(); ++n) nics[n].leaf = leaf_of[n];
  std::vector<Switch> sw = Switches(5);
  for (int s = 0; s < 4; ++s) sw[s].rail = s % 2;
  const std::vector<Rail> rails = {{{0, 2}}, {{1, 3}}};
  // One island: every leaf under spine sw4.
  const SwitchGraph g = ReadSwitchGraph(
      5, {Cable(Sw(0), Sw(4)), Cable(Sw(1), Sw(4)), Cable(Sw(2), Sw(4)), Cable(Sw(3), Sw(4))});
  std::vector<Block> blocks;
  Warnings w;
  FormBlocks(g, rails, nics, sw, hosts, blocks, w);

  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_THAT(blocks[0].hosts, ElementsAre(0, 1, 2));
  EXPECT_THAT(blocks[0].leaves, ElementsAre(0, 1));
  EXPECT_THAT(blocks[1].hosts, ElementsAre(3));
  EXPECT_EQ(hosts[2].block, 0);
  EXPECT_EQ(sw[2].block, 1);
  EXPECT_EQ(sw[4].block, -1);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_THAT(w[0], HasSubstr("h2 (1 of 2 leaves)"));
}

TEST(HierarchyPhases, TierDomainsJoinLeavesThroughSwitchesUpToThatTier) {
  // Leaves sw0, sw1 under spine sw2; leaf sw3 under spine sw4; both spines under core sw5.
  std::vector<Switch> sw = Switches(6);
  for (int s : {0, 1, 3}) sw[s].tier = 1;
  for (int s : {2, 4}) sw[s].tier = 2;
  sw[5].tier = 3;
  const SwitchGraph g =
      ReadSwitchGraph(6, {Cable(Sw(0), Sw(2)), Cable(Sw(1), Sw(2)), Cable(Sw(3), Sw(4)),
                          Cable(Sw(2), Sw(5)), Cable(Sw(4), Sw(5))});
  const std::vector<std::vector<int32_t>> d = JoinTierDomains(g, sw, 3);

  ASSERT_EQ(d.size(), 3u);
  EXPECT_THAT(d[0], ElementsAre(0, 1, -1, 2, -1, -1));  // each leaf alone
  EXPECT_THAT(d[1], ElementsAre(0, 0, -1, 1, -1, -1));  // joined by their spine
  EXPECT_THAT(d[2], ElementsAre(0, 0, -1, 0, -1, -1));  // all under the core
}

TEST(HierarchyPhases, BlocksWhoseLeavesMeetAtTheSpineTierFormAPod) {
  // Per tier, per switch (leaves 0..3): at tier 2, leaves 0-2 share a domain, leaf 3 not.
  const std::vector<std::vector<int32_t>> leaf_domain = {{0, 1, 2, 3}, {0, 0, 0, 1}};
  std::vector<Block> blocks(3);
  blocks[0].leaves = {0, 1};
  blocks[1].leaves = {2};
  blocks[2].leaves = {3};
  std::vector<Host> hosts(4);
  const std::vector<int32_t> block_of = {0, 1, 2, -1};
  for (size_t h = 0; h < hosts.size(); ++h) hosts[h].block = block_of[h];
  std::vector<Pod> pods;
  FormPods(leaf_domain, blocks, hosts, pods);

  ASSERT_EQ(pods.size(), 2u);
  EXPECT_THAT(pods[0].blocks, ElementsAre(0, 1));
  EXPECT_THAT(pods[1].blocks, ElementsAre(2));
  EXPECT_EQ(hosts[1].pod, 0);
  EXPECT_EQ(hosts[2].pod, 1);
  EXPECT_EQ(hosts[3].pod, -1);
}

TEST(HierarchyPhases, HostsDeclaringOneNvlinkDomainShareItAndAShortOneIsNamed) {
  std::vector<Host> hosts(5);
  const std::vector<std::string> declared = {"rack-a", "", "rack-a", "rack-b", "rack-a"};
  for (size_t h = 0; h < hosts.size(); ++h) {
    hosts[h].name = "h" + std::to_string(h);
    hosts[h].nvlink_domain = declared[h];
    hosts[h].block = 0;
  }
  Warnings w;
  const std::vector<std::vector<HostId>> domains = FormNvlinkDomains(hosts, w);

  ASSERT_EQ(domains.size(), 3u);
  EXPECT_THAT(domains[0], ElementsAre(0, 2, 4));
  EXPECT_THAT(domains[1], ElementsAre(1));
  EXPECT_THAT(domains[2], ElementsAre(3));
  EXPECT_EQ(hosts[4].nvlink_domain_id, 0);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_THAT(w[0], HasSubstr("'rack-b' has 1 hosts, the largest has 3"));
}

TEST(HierarchyPhases, TierBandwidthCountsLinksDownTowardsHostsAndUpTowardsHigherTiers) {
  // Two leaves with two 400G NIC cables each, each leaf with one 800G uplink to the spine.
  std::vector<Switch> sw = Switches(3);
  sw[0].tier = sw[1].tier = 1;
  sw[2].tier = 2;
  const std::vector<Link> links = {Cable(NicEnd(0), Sw(0)),  Cable(NicEnd(1), Sw(0)),
                                   Cable(NicEnd(2), Sw(1)),  Cable(NicEnd(3), Sw(1)),
                                   Cable(Sw(0), Sw(2), 800), Cable(Sw(1), Sw(2), 800)};
  const std::vector<TierStats> stats = SumTierBandwidth(sw, links, 2);

  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[0].switches, 2);
  EXPECT_DOUBLE_EQ(stats[0].down_gbps, 1600);
  EXPECT_DOUBLE_EQ(stats[0].up_gbps, 1600);
  EXPECT_DOUBLE_EQ(stats[1].down_gbps, 1600);
  EXPECT_DOUBLE_EQ(stats[1].up_gbps, 0);
}

}  // namespace
}  // namespace topoplace::hierarchy
