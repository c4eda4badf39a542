#include "telemetry/probe/probe_plan.h"

#include <gtest/gtest.h>

#include "absl/container/flat_hash_set.h"
#include "tests/testing/fabrics.h"

namespace topoplace::telemetry {
namespace {

TEST(ProbePlanTest, SameLeafPeerPerRailThenSpineSample) {
  // 2 blocks x 3 hosts x 2 rails.
  FabricPtr fabric = *GenerateClos(testing::TinyClos(2, 3));
  const HostId host = 0;
  std::vector<PlannedProbe> plan = PlanProbes(*fabric, host, {.spine_samples = 1}, 0);
  ASSERT_EQ(plan.size(), 4u);  // 2 rails x (1 same-leaf + 1 spine)
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(plan[i].tier, Tier::kLeaf);
    EXPECT_EQ(fabric->nics()[plan[i].local].leaf, fabric->nics()[plan[i].remote].leaf);
    EXPECT_NE(fabric->nics()[plan[i].remote].host, host);
  }
  for (int i = 2; i < 4; ++i) {
    EXPECT_EQ(plan[i].tier, Tier::kSpine);
    EXPECT_EQ(fabric->nics()[plan[i].local].index, fabric->nics()[plan[i].remote].index)
        << "spine samples stay on the rail";
  }
}

TEST(ProbePlanTest, RotatesSameLeafPeersAcrossRounds) {
  FabricPtr fabric = *GenerateClos(testing::TinyClos(1, 3));
  absl::flat_hash_set<NicId> peers;
  for (uint64_t round = 0; round < 4; ++round) {
    peers.insert(PlanProbes(*fabric, 0, {.spine_samples = 0}, round)[0].remote);
  }
  EXPECT_EQ(peers.size(), 2u) << "both other hosts on the leaf get probed";
}

TEST(ProbePlanTest, BudgetKeepsSameLeafProbesFirst) {
  FabricPtr fabric = *GenerateClos(testing::TinyClos(2, 3));
  std::vector<PlannedProbe> plan =
      PlanProbes(*fabric, 0, {.spine_samples = 2, .max_probes_per_round = 3}, 7);
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0].tier, Tier::kLeaf);
  EXPECT_EQ(plan[1].tier, Tier::kLeaf);
}

TEST(ProbePlanTest, Deterministic) {
  FabricPtr fabric = *GenerateClos(testing::TinyClos(3, 2));
  std::vector<PlannedProbe> a = PlanProbes(*fabric, 1, {}, 5);
  std::vector<PlannedProbe> b = PlanProbes(*fabric, 1, {}, 5);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].remote, b[i].remote);
}

TEST(ProbePlanTest, OptionsAreValidated) {
  EXPECT_FALSE(ValidatePlanOptions({.max_probes_per_round = 0}).ok());
  EXPECT_FALSE(ValidatePlanOptions({.interval = absl::Milliseconds(1)}).ok());
  absl::Status fast = ValidatePlanOptions({.interval = absl::Milliseconds(999)});
  EXPECT_EQ(fast.message(), "interval: expected at least 1s, got 999ms");
  EXPECT_TRUE(ValidatePlanOptions({.interval = kMinProbeInterval}).ok());
  EXPECT_TRUE(ValidatePlanOptions({}).ok());
}

}  // namespace
}  // namespace topoplace::telemetry
