#include "scheduler/traffic/routing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <span>

#include "scheduler/traffic/traffic_report.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::sched {
namespace {

// Two blocks of 2 nodes x 2 GPUs, one leaf per rail per block, rail-plane spines: a rail-r
// leaf only reaches rail-r spines, like rail-28k.
FabricPtr RailPlaneFabric() {
  ClosParams p;
  p.name = "rail-planes";
  p.blocks_per_pod = 2;
  p.nodes_per_block = 2;
  p.gpus_per_node = 2;
  p.rails = 2;
  p.spines_per_pod = 2;
  p.rail_planes = true;
  absl::StatusOr<FabricPtr> f = GenerateClos(p);
  EXPECT_TRUE(f.ok()) << f.status();
  return *f;
}

RankSlot Slot(const Fabric& f, HostId host, int gpu_index) {
  const GpuId g = f.hosts()[host].gpus[gpu_index];
  return RankSlot{host, g, f.gpus()[g].nic};
}

TEST(Router, ClassifiesByHighestTierOnRailOptimisedFabric) {
  FabricPtr f = RailPlaneFabric();
  const TierIndex index(*f);
  const Router router(index, {});
  const HostId b0n0 = *f->FindHost("b00-n000"), b0n1 = *f->FindHost("b00-n001");
  const HostId b1n0 = *f->FindHost("b01-n000");
  EXPECT_EQ(router.Classify(Slot(*f, b0n0, 0), Slot(*f, b0n0, 1)), Tier::kNvlink);
  EXPECT_EQ(router.Classify(Slot(*f, b0n0, 0), Slot(*f, b0n1, 0)), Tier::kLeaf);   // same rail
  EXPECT_EQ(router.Classify(Slot(*f, b0n0, 0), Slot(*f, b1n0, 0)), Tier::kSpine);  // rail plane
  // Cross-rail without PXN: rail-0 leaf and rail-1 leaf share no spine on rail planes.
  EXPECT_EQ(router.Classify(Slot(*f, b0n0, 0), Slot(*f, b1n0, 1)), Tier::kUnreachable);
}

TEST(Router, RailLocalForwardingKeepsCrossRailTrafficOnTheDestinationRail) {
  FabricPtr f = RailPlaneFabric();
  const TierIndex index(*f);
  const Router pxn(index, {.rail_local = true});
  const HostId b0n0 = *f->FindHost("b00-n000"), b0n1 = *f->FindHost("b00-n001");
  const HostId b1n0 = *f->FindHost("b01-n000");
  // GPU 0 -> remote GPU 1 leaves through the local rail-1 NIC: one leaf inside the block,
  // the rail-1 spine plane across blocks.
  EXPECT_EQ(pxn.Classify(Slot(*f, b0n0, 0), Slot(*f, b0n1, 1)), Tier::kLeaf);
  EXPECT_EQ(pxn.Classify(Slot(*f, b0n0, 0), Slot(*f, b1n0, 1)), Tier::kSpine);
}

TEST(TierIndex, AgreesWithTheFabricOnEveryNicPair) {
  for (const char* preset : {"superpod-4su", "rail-512"}) {
    absl::StatusOr<FabricPtr> f = GeneratePreset(preset);
    ASSERT_TRUE(f.ok()) << f.status();
    const TierIndex index(**f);
    const NicId n = static_cast<NicId>((*f)->nics().size());
    // Every 7th NIC against every 5th: all tiers occur, and it stays fast.
    for (NicId a = 0; a < n; a += 7) {
      for (NicId b = 0; b < n; b += 5) {
        ASSERT_EQ(index.NicTier(a, b), (*f)->NicTier(a, b)) << preset << " " << a << " " << b;
      }
    }
  }
  {
    // Three tiers: core pairs occur between pods. A sparse sample of 100k NICs.
    absl::StatusOr<FabricPtr> clos = GeneratePreset("clos3-100k");
    ASSERT_TRUE(clos.ok()) << clos.status();
    const TierIndex index(**clos);
    const NicId n = static_cast<NicId>((*clos)->nics().size());
    std::set<Tier> seen;
    for (NicId a = 0; a < n; a += 997) {
      for (NicId b = 0; b < n; b += 1009) {
        ASSERT_EQ(index.NicTier(a, b), (*clos)->NicTier(a, b)) << a << " " << b;
        seen.insert(index.NicTier(a, b));
      }
    }
    EXPECT_TRUE(seen.contains(Tier::kCore));
    EXPECT_TRUE(seen.contains(Tier::kSpine));
  }
  FabricPtr planes = RailPlaneFabric();
  const TierIndex index(*planes);
  for (NicId a = 0; a < static_cast<NicId>(planes->nics().size()); ++a) {
    for (NicId b = 0; b < static_cast<NicId>(planes->nics().size()); ++b) {
      ASSERT_EQ(index.NicTier(a, b), planes->NicTier(a, b));
    }
  }
}

// Rail-optimised presets put the NICs of one index in a block on one leaf: the block's
// table then holds the leaves of each of its aligned hosts.
TEST(TierIndex, BlockGpuLeavesAreThoseOfEveryAlignedHostOfTheBlock) {
  for (const char* preset : {"superpod-4su", "rail-28k", "clos3-100k"}) {
    SCOPED_TRACE(preset);
    absl::StatusOr<FabricPtr> f = GeneratePreset(preset);
    ASSERT_TRUE(f.ok()) << f.status();
    const TierIndex index(**f);
    for (int32_t b = 0; b < static_cast<int32_t>((*f)->blocks().size()); ++b) {
      EXPECT_FALSE(index.block_gpu_leaves(b).empty()) << "block " << b;
    }
    int compared = 0;
    for (HostId h = 0; h < static_cast<HostId>((*f)->hosts().size()); ++h) {
      const int32_t b = (*f)->hosts()[h].block;
      if (b < 0 || index.aligned_gpus(h) == 0) continue;
      const std::span<const SwitchId> own = index.gpu_leaves(h), table = index.block_gpu_leaves(b);
      ASSERT_TRUE(std::equal(own.begin(), own.end(), table.begin(), table.end())) << "host " << h;
      ++compared;
    }
    EXPECT_GT(compared, 0);
  }
}

}  // namespace
}  // namespace topoplace::sched
