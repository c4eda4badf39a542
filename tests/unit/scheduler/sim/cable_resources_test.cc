// Link sharing's resources: two per cable (up and down), at the cable's bytes per second;
// a hashed load stays on its cable, a fluid one splits over all of them.
#include "scheduler/sim/cable_resources.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace topoplace::sched::sim
