// Inference derives tiers, rails, blocks and pods from the graph alone: these fabrics use
// names that say nothing about roles ("sw-a", "x1") so nothing can come from naming.
#include "topology/model/hierarchy_inference.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/fabrics.h"
#include "topology/generate/reference_fabrics.h"
#include "topology/model/fabric_builder.h"

namespace topoplace {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// 2 blocks x 2 rails x 2 hosts, one GPU per NIC; the 4 leaves all reach 2 spines.
// Switch names are deliberately meaningless.
struct SmallFabric {
  FabricBuilder builder{"small"};
  std::vector<SwitchId> leaves;  // block-major: b0r0, b0r1, b1r0, b1r1
  std::vector<SwitchId> spines;

  // `domains`: the NVLink domain of each host h00, h01, h10, h11 (empty: none).
  explicit SmallFabric(bool drop_one_nic_link = false, std::vector<std::string> domains = {}) {
    for (int s = 0; s < 2; ++s) spines.push_back(*builder.AddSwitch("x" + std::to_string(s)));
    for (int l = 0; l < 4; ++l) {
      leaves.push_back(*builder.AddSwitch("sw-" + std::string(1, static_cast<char>('a' + l))));
      for (SwitchId s : spines) {
        EXPECT_TRUE(builder.AddLink(SwitchEnd(leaves[l]), SwitchEnd(s), {.speed_gbps = 400}).ok());
      }
    }
    for (int b = 0; b < 2; ++b) {
      for (int n = 0; n < 2; ++n) {
        const size_t i = static_cast<size_t>(b * 2 + n);
        HostId h = *builder.AddHost("h" + std::to_string(b) + std::to_string(n),
                                    i < domains.size() ? domains[i] : "");
        for (int r = 0; r < 2; ++r) {
          NicId nic = *builder.AddNic(h, "nic" + std::to_string(r), 200);
          EXPECT_TRUE(builder.AddGpu(h, r, nic).ok());
          if (drop_one_nic_link && b == 1 && n == 1 && r == 1) continue;
          EXPECT_TRUE(
              builder.AddLink(NicEnd(nic), SwitchEnd(leaves[b * 2 + r]), {.speed_gbps = 200}).ok());
        }
      }
    }
  }
  FabricPtr Build() && { return *std::move(builder).Build(); }
};

TEST(HierarchyInference, Tiers_ComeFromDistanceToHosts) {
  FabricPtr f = SmallFabric().Build();
  for (SwitchId s = 0; s < 2; ++s) EXPECT_EQ(f->switches()[s].tier, 2) << f->switches()[s].name;
  for (SwitchId s = 2; s < 6; ++s) EXPECT_EQ(f->switches()[s].tier, 1) << f->switches()[s].name;
  EXPECT_EQ(f->max_tier(), 2);
  EXPECT_THAT(f->warnings(), IsEmpty());
}

TEST(HierarchyInference, RailsAndBlocks_FollowNicIndexAndLeafSets) {
  SmallFabric sf;
  std::vector<SwitchId> leaves = sf.leaves;
  FabricPtr f = std::move(sf).Build();
  EXPECT_TRUE(f->rail_optimized());
  ASSERT_EQ(f->rails().size(), 2u);
  EXPECT_THAT(f->rails()[0].leaves, ElementsAre(leaves[0], leaves[2]));
  EXPECT_THAT(f->rails()[1].leaves, ElementsAre(leaves[1], leaves[3]));
  ASSERT_EQ(f->blocks().size(), 2u);
  EXPECT_THAT(f->blocks()[0].hosts, ElementsAre(0, 1));
  EXPECT_THAT(f->blocks()[1].hosts, ElementsAre(2, 3));
  EXPECT_EQ(f->switches()[leaves[3]].block, 1);
  ASSERT_EQ(f->pods().size(), 1u);  // every leaf meets every other at the spines
  EXPECT_THAT(f->pods()[0].blocks, ElementsAre(0, 1));
}

TEST(HierarchyInference, GpuTier_IsNvlinkLeafOrSpineByCoordinates) {
  FabricPtr f = SmallFabric().Build();
  auto gpu = [&](int host, int index) { return f->hosts()[host].gpus[index]; };
  EXPECT_EQ(f->GpuTier(gpu(0, 0), gpu(0, 1)), Tier::kNvlink);  // same host
  EXPECT_EQ(f->GpuTier(gpu(0, 0), gpu(1, 0)), Tier::kLeaf);    // same block, same rail
  EXPECT_EQ(f->GpuTier(gpu(0, 0), gpu(1, 1)), Tier::kSpine);   // same block, other rail
  EXPECT_EQ(f->GpuTier(gpu(0, 1), gpu(3, 1)), Tier::kSpine);   // other block
  EXPECT_EQ(f->GpuHops(gpu(0, 0), gpu(1, 0)), 1);
  EXPECT_EQ(f->GpuHops(gpu(0, 1), gpu(3, 1)), 3);
  EXPECT_EQ(f->GpuHops(gpu(0, 0), gpu(0, 1)), 0);
}

TEST(HierarchyInference, HostMissingANicLink_StillJoinsItsBlockWithAWarning) {
  FabricPtr f = SmallFabric(/*drop_one_nic_link=*/true).Build();
  ASSERT_EQ(f->blocks().size(), 2u);
  EXPECT_THAT(f->blocks()[1].hosts, ElementsAre(2, 3));
  EXPECT_THAT(f->warnings(), ::testing::Contains(HasSubstr("h11 (1 of 2 leaves)")));
  EXPECT_THAT(f->warnings(), ::testing::Contains(HasSubstr("not cabled to any switch: h11/nic1")));
  // Its uncabled GPU has no network path.
  EXPECT_EQ(f->GpuTier(f->hosts()[3].gpus[1], f->hosts()[0].gpus[1]), Tier::kUnreachable);
}

TEST(HierarchyInference, StorageIsland_IsLeftOutOfBlockKeys) {
  SmallFabric small;
  // Host h00 also has a storage NIC on a switch island of its own, and a storage-only
  // host hangs off the same island.
  FabricBuilder& b = small.builder;
  SwitchId storage = *b.AddSwitch("st");
  NicId extra = *b.AddNic(0, "nic9", 100);
  ASSERT_TRUE(b.AddLink(NicEnd(extra), SwitchEnd(storage), {.speed_gbps = 100}).ok());
  HostId filer = *b.AddHost("filer");
  NicId filer_nic = *b.AddNic(filer, "nic0", 100);
  ASSERT_TRUE(b.AddLink(NicEnd(filer_nic), SwitchEnd(storage), {.speed_gbps = 100}).ok());
  FabricPtr f = std::move(small).Build();
  ASSERT_EQ(f->blocks().size(), 3u);
  EXPECT_THAT(f->blocks()[0].hosts, ElementsAre(0, 1));  // h00 keeps h01's block
  EXPECT_THAT(f->blocks()[0].leaves, ElementsAre(small.leaves[0], small.leaves[1]));
  EXPECT_THAT(f->blocks()[2].hosts, ElementsAre(filer));
  EXPECT_THAT(f->warnings(), ::testing::Not(::testing::Contains(HasSubstr("only part"))));
}

TEST(HierarchyInference, DeclaredTierThatContradictsTheGraph_IsAWarning) {
  FabricBuilder b("t");
  HostId h = *b.AddHost("h");
  NicId nic = *b.AddNic(h, "nic0", 100);
  SwitchId leaf = *b.AddSwitch("declared-spine", 2);
  SwitchId lonely = *b.AddSwitch("lonely");
  ASSERT_TRUE(b.AddLink(NicEnd(nic), SwitchEnd(leaf), {.speed_gbps = 100}).ok());
  FabricPtr f = *std::move(b).Build();
  EXPECT_EQ(f->switches()[leaf].tier, 1);
  EXPECT_EQ(f->switches()[lonely].tier, 0);
  EXPECT_THAT(f->warnings(),
              ::testing::Contains(HasSubstr("declared-spine (declared 2, inferred 1)")));
  EXPECT_THAT(f->warnings(), ::testing::Contains(HasSubstr("reach no host and are left out")));
}

TEST(HierarchyInference, RailPlanes_MakeCrossRailNetworkPathsUnreachable) {
  ClosParams p = testing::TinyClos(/*blocks=*/2, /*nodes=*/2);
  p.rail_planes = true;
  FabricPtr f = *GenerateClos(p);
  auto gpu = [&](int host, int index) { return f->hosts()[host].gpus[index]; };
  EXPECT_EQ(f->GpuTier(gpu(0, 0), gpu(2, 0)), Tier::kSpine);  // rail 0 plane
  // Rail 0 of one block and rail 1 of another share no switch: only forwarding over
  // NVLink to the right rail first (PXN, modelled in scheduler/) connects them.
  EXPECT_EQ(f->GpuTier(gpu(0, 0), gpu(2, 1)), Tier::kUnreachable);
  EXPECT_EQ(f->pods().size(), 1u);
}

TEST(HierarchyInference, ThreeTiers_SplitPodsAtTheSpines) {
  FabricPtr f = *GenerateClos(testing::TinyClos3(/*pods=*/2, /*blocks_per_pod=*/2, /*nodes=*/2));
  ASSERT_EQ(f->pods().size(), 2u);
  EXPECT_THAT(f->pods()[1].blocks, ElementsAre(2, 3));
  auto gpu = [&](int host, int index) { return f->hosts()[host].gpus[index]; };
  EXPECT_EQ(f->GpuTier(gpu(0, 0), gpu(2, 0)), Tier::kSpine);  // same pod, other block
  EXPECT_EQ(f->GpuTier(gpu(0, 0), gpu(4, 0)), Tier::kCore);   // other pod
  EXPECT_EQ(f->GpuHops(gpu(0, 0), gpu(4, 0)), 5);
  EXPECT_EQ(f->hosts()[5].pod, 1);
}

TEST(HierarchyInference, NvlinkDomain_SpansHostsThatDeclareIt) {
  FabricBuilder b("nvl");
  HostId a = *b.AddHost("a", "rack1");
  HostId c = *b.AddHost("c", "rack1");
  HostId d = *b.AddHost("d");
  for (HostId h : {a, c, d}) ASSERT_TRUE(b.AddGpu(h, 0).ok());
  FabricPtr f = *std::move(b).Build();
  ASSERT_EQ(f->nvlink_domains().size(), 2u);
  EXPECT_THAT(f->nvlink_domains()[0], ElementsAre(a, c));
  EXPECT_EQ(f->GpuTier(f->hosts()[a].gpus[0], f->hosts()[c].gpus[0]), Tier::kNvlink);
  EXPECT_EQ(f->GpuTier(f->hosts()[a].gpus[0], f->hosts()[d].gpus[0]), Tier::kUnreachable);
}

// The finding: a fabric file that is a chain of 20,000 switches took 1.6 GB and 11 s (per
// tier tables of tiers x switches). Switches beyond kMaxSwitchTiers are left out, named.
TEST(HierarchyInference, LongSwitchChain_KeepsAtMostMaxTiersAndNamesTheRest) {
  FabricBuilder builder{"chain"};
  HostId h = *builder.AddHost("h0");
  NicId nic = *builder.AddNic(h, "mlx5_0", 400);
  ASSERT_TRUE(builder.AddGpu(h, 0, nic).ok());
  constexpr int kChain = 20000;
  std::vector<SwitchId> chain;
  for (int i = 0; i < kChain; ++i) chain.push_back(*builder.AddSwitch("s" + std::to_string(i)));
  ASSERT_TRUE(builder.AddLink(NicEnd(nic), SwitchEnd(chain[0]), {.speed_gbps = 400}).ok());
  for (int i = 0; i + 1 < kChain; ++i) {
    ASSERT_TRUE(
        builder.AddLink(SwitchEnd(chain[i]), SwitchEnd(chain[i + 1]), {.speed_gbps = 400}).ok());
  }
  FabricPtr f = *std::move(builder).Build();
  EXPECT_EQ(f->max_tier(), kMaxSwitchTiers);
  EXPECT_EQ(f->switches()[chain[kMaxSwitchTiers - 1]].tier, kMaxSwitchTiers);
  EXPECT_EQ(f->switches()[chain[kMaxSwitchTiers]].tier, 0);  // left out
  bool named = false;
  for (const std::string& w : f->warnings()) {
    if (w.find("more than 8 tiers above any host") != std::string::npos &&
        w.find("s8") != std::string::npos) {
      named = true;
    }
  }
  EXPECT_TRUE(named) << ::testing::PrintToString(f->warnings());
}

// `fabric import` tells an operator when a declared NVLink domain does not nest in one
// leaf group (its trays are cabled to other racks' leaves) and when a domain has fewer
// hosts than the largest (a tray out, or not reporting).
TEST(HierarchyInference, NvlinkDomains_ThatSpanLeafGroupsOrLackHostsAreWarnedAbout) {
  FabricPtr f = SmallFabric(false, {"rack-a", "rack-a", "rack-a", "rack-b"}).Build();
  ASSERT_EQ(f->nvlink_domains().size(), 2u);
  EXPECT_THAT(f->warnings(), ::testing::Contains(HasSubstr("'rack-a' spans 2 leaf groups")));
  EXPECT_THAT(f->warnings(),
              ::testing::Contains(HasSubstr("'rack-b' has 1 hosts, the largest has 3")));
  // Domains that nest in their blocks and are all alike: nothing to say.
  FabricPtr ok = SmallFabric(false, {"rack-a", "rack-a", "rack-b", "rack-b"}).Build();
  EXPECT_THAT(ok->warnings(), ::testing::Not(::testing::Contains(HasSubstr("NVLink domain"))));
}

// The packed host places the per-placement loops read are each host's own derived facts,
// on every preset (NVLink racks, rails, three tiers) and on a fabric with a host missing a
// NIC link.
TEST(HierarchyInference, HostPlaces_AreEveryHostsBlockPodDomainAndGpuCount) {
  std::vector<FabricPtr> fabrics;
  for (const std::string& name : PresetNames()) {
    if (name == "clos3-100k") continue;  // the largest: the others cover its shapes
    fabrics.push_back(*GeneratePreset(name));
  }
  fabrics.push_back(SmallFabric(/*drop_one_nic_link=*/true).Build());
  for (const FabricPtr& f : fabrics) {
    ASSERT_EQ(f->host_places().size(), f->hosts().size()) << f->name();
    for (size_t h = 0; h < f->hosts().size(); ++h) {
      const Host& host = f->hosts()[h];
      const Fabric::HostPlace& place = f->host_places()[h];
      EXPECT_EQ(place.block, host.block) << f->name() << " " << host.name;
      EXPECT_EQ(place.pod, host.pod) << f->name() << " " << host.name;
      EXPECT_EQ(place.nvlink_domain, host.nvlink_domain_id) << f->name() << " " << host.name;
      EXPECT_EQ(place.gpus, static_cast<int32_t>(host.gpus.size()))
          << f->name() << " " << host.name;
    }
  }
}

}  // namespace
}  // namespace topoplace
