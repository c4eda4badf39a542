// Link sharing's resources: two per cable (up and down), at the cable's bytes per second;
// a hashed load stays on its cable, a fluid one splits over all of them.
#include "scheduler/sim/cable_resources.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "scheduler/placement/engine.h"
#include "tests/testing/fabrics.h"
#include "tests/unit/scheduler/sim/tiny_fabric.h"

namespace topoplace::sched::sim {
namespace {

TEST(CableResources, TwoPerCableAtItsSpeedAndLoadsLandOnTheirCables) {
  // One spine, leaves not oversubscribed: each leaf's uplink is a bundle of 4 cables.
  absl::StatusOr<FabricPtr> fabric = GenerateClos(OneSpine("bundles", 2, 4));
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  const CableResources cables(**fabric);
  const std::vector<Link>& links = (*fabric)->links();
  size_t total = 0;
  LinkId bundle = -1;  // a link of several cables, if the fabric has one
  for (LinkId l = 0; l < static_cast<LinkId>(links.size()); ++l) {
    const int32_t n = cables.end(l) - cables.first(l);
    EXPECT_EQ(n, 2 * std::max(1, links[l].count)) << "link " << l;
    EXPECT_DOUBLE_EQ(cables.capacity()[cables.first(l)], links[l].speed_gbps * 1e9 / 8);
    if (links[l].count > 1 && bundle < 0) bundle = l;
    total += static_cast<size_t>(n);
  }
  EXPECT_EQ(cables.capacity().size(), total);

  ASSERT_GE(bundle, 0) << "the fabric has no link of several cables";
  const LinkId l = bundle;
  const int32_t count = (cables.end(l) - cables.first(l)) / 2;
  const std::vector<ResourceBytes> hashed =
      cables.Demand({{.link = l, .up_bytes = 8, .down_bytes = 2, .cable = count - 1}});
  ASSERT_EQ(hashed.size(), 2u);
  EXPECT_EQ(hashed[0].resource, cables.first(l) + 2 * (count - 1));
  EXPECT_EQ(hashed[0].bytes, 8);
  EXPECT_EQ(hashed[1].resource, cables.first(l) + 2 * (count - 1) + 1);
  EXPECT_EQ(hashed[1].bytes, 2);
  const std::vector<ResourceBytes> fluid =
      cables.Demand({{.link = l, .up_bytes = 8, .down_bytes = 2, .cable = -1}});
  ASSERT_EQ(fluid.size(), 2u * static_cast<size_t>(count));
  for (int32_t c = 0; c < count; ++c) {
    EXPECT_DOUBLE_EQ(fluid[2 * c].bytes, 8.0 / count);
    EXPECT_DOUBLE_EQ(fluid[2 * c + 1].bytes, 2.0 / count);
  }
}

// The placement engine's link-step scorer times a plan alone by BusiestCableSeconds; the
// simulation by LinkSharing::AloneSeconds over these resources. They are one number, for
// fluid and hashed loads alike, on plans across racks and blocks.
TEST(CableResources, BusiestCableSecondsIsLinkSharingsTimeAlone) {
  for (const char* preset : {"gb200-nvl72", "superpod-4su"}) {
    const FabricPtr& fabric = testing::Preset(preset);
    PlacementEngine engine(fabric);
    const CableResources cables(*fabric);
    for (const EcmpMode mode : {EcmpMode::kFluid, EcmpMode::kHash}) {
      for (const char* policy : {"first-fit", "random", "topoplace"}) {
        PlacementRequest request;
        request.policy = policy;
        request.seed = 7;
        request.job = *ParseJobSpec(std::string(preset) == "gb200-nvl72"
                                        ? "tp=4,pp=4,dp=8,gpus_per_node=4,model=70b"
                                        : "tp=8,pp=4,dp=16,model=70b");
        request.link_loads = true;
        request.ecmp = {mode, 7};
        absl::StatusOr<PlacementPlan> plan = engine.Place(request, Occupancy(*fabric));
        ASSERT_TRUE(plan.ok()) << plan.status();
        ASSERT_FALSE(plan->links.empty());
        LinkSharing sharing(cables.capacity());
        sharing.Set(1, cables.Demand(plan->links));
        const double alone = sharing.AloneSeconds(1);
        ASSERT_GT(alone, 0) << preset << " " << policy;
        EXPECT_NEAR(BusiestCableSeconds(*fabric, plan->links), alone, 1e-12 * alone)
            << preset << " " << policy << " " << EcmpModeName(mode);
      }
    }
  }
}

}  // namespace
}  // namespace topoplace::sched::sim
