#include "scheduler/load/uplink_tally.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/fabrics.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::sched {
namespace {

// The first link from `leaf` up to a spine, and the leaf's total uplink bytes per second.
std::pair<LinkId, double> FirstUplink(const Fabric& fabric, SwitchId leaf) {
  LinkId first = -1;
  double capacity = 0;
  for (LinkId l = 0; l < static_cast<LinkId>(fabric.links().size()); ++l) {
    const Link& link = fabric.links()[l];
    if (link.a.kind != Endpoint::Kind::kSwitch || link.b.kind != Endpoint::Kind::kSwitch) continue;
    if (link.a.id != leaf && link.b.id != leaf) continue;
    if (first < 0) first = l;
    capacity += link.bandwidth_gbps() * 1e9 / 8;
  }
  return {first, capacity};
}

TEST(UplinkTally, AJobsBytesUpPerStepOverItsCapacityIsTheLeafsBusyShare) {
  FabricPtr fabric = *GenerateClos(testing::TinyClos(/*blocks=*/2, /*nodes=*/2));
  const SwitchId leaf = fabric->blocks()[0].leaves[0];
  const auto [uplink, capacity] = FirstUplink(*fabric, leaf);
  ASSERT_GE(uplink, 0);
  LinkId access = -1;
  for (LinkId l = 0; access < 0 && l < static_cast<LinkId>(fabric->links().size()); ++l) {
    if (fabric->links()[l].a.kind == Endpoint::Kind::kNic) access = l;
  }
  ASSERT_GE(access, 0);

  UplinkTally tally(*fabric);
  // 4e9 bytes up per 2 s step on one uplink (twice over, to check they add up), and
  // bytes on a host's access link, which leads up from no switch.
  const std::vector<LinkLoad> links = {{.link = uplink, .up_bytes = 3e9},
                                       {.link = uplink, .up_bytes = 1e9},
                                       {.link = access, .up_bytes = 9e9}};
  const UplinkTally::Offer offer = tally.OfferOf(links, 2.0);
  ASSERT_EQ(offer.size(), 1u);
  EXPECT_EQ(offer[0].first, leaf);
  EXPECT_DOUBLE_EQ(offer[0].second, 2e9);

  tally.Add(offer);
  tally.Add(offer);
  EXPECT_DOUBLE_EQ(tally.busy()[leaf], 4e9 / capacity);
  tally.Remove(offer);
  EXPECT_DOUBLE_EQ(tally.busy()[leaf], 2e9 / capacity);
  tally.Remove(offer);
  tally.Remove(offer);  // never below idle
  EXPECT_EQ(tally.busy()[leaf], 0);
  EXPECT_TRUE(tally.OfferOf(links, 0).empty());
}

}  // namespace
}  // namespace topoplace::sched
