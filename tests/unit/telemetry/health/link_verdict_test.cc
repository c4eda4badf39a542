#include "telemetry/health/link_verdict.h"

#include <gtest/gtest.h>

namespace topoplace::telemetry {
namespace {

constexpr LinkVerdict kOk = LinkVerdict::kHealthy;
constexpr LinkVerdict kSlow = LinkVerdict::kDegraded;
constexpr LinkVerdict kDown = LinkVerdict::kDown;

TEST(HysteresisTest, OneBadSampleDoesNotFlap) {
  Hysteresis h({.worsen_after = 2, .recover_after = 3});
  EXPECT_FALSE(h.Observe(kDown));
  EXPECT_FALSE(h.Observe(kOk));  // the streak is broken
  EXPECT_FALSE(h.Observe(kDown));
  EXPECT_EQ(h.state(), kOk);
}

TEST(HysteresisTest, WorsensAfterTwoAndRecoversAfterThree) {
  Hysteresis h({.worsen_after = 2, .recover_after = 3});
  EXPECT_FALSE(h.Observe(kDown));
  EXPECT_TRUE(h.Observe(kDown));
  EXPECT_EQ(h.state(), kDown);
  EXPECT_FALSE(h.Observe(kOk));
  EXPECT_FALSE(h.Observe(kOk));
  EXPECT_TRUE(h.Observe(kOk));
  EXPECT_EQ(h.state(), kOk);
}

TEST(HysteresisTest, MixedBadStreakTakesTheMildestVerdict) {
  Hysteresis h({.worsen_after = 2, .recover_after = 3});
  EXPECT_FALSE(h.Observe(kDown));
  EXPECT_TRUE(h.Observe(kSlow));
  EXPECT_EQ(h.state(), kSlow);  // down, degraded -> degraded
  EXPECT_FALSE(h.Observe(kDown));
  EXPECT_TRUE(h.Observe(kDown));
  EXPECT_EQ(h.state(), kDown);
}

TEST(HysteresisTest, RecoveryStreakTakesItsWorstVerdict) {
  Hysteresis h({.worsen_after = 1, .recover_after = 2});
  EXPECT_TRUE(h.Observe(kDown));
  EXPECT_FALSE(h.Observe(kOk));
  EXPECT_TRUE(h.Observe(kSlow));
  EXPECT_EQ(h.state(), kSlow);  // ok, degraded -> degraded
}

TEST(HysteresisTest, SameVerdictResetsBothStreaks) {
  Hysteresis h({.worsen_after = 2, .recover_after = 2});
  EXPECT_FALSE(h.Observe(kSlow));
  EXPECT_FALSE(h.Observe(kOk));
  EXPECT_FALSE(h.Observe(kSlow));
  EXPECT_EQ(h.state(), kOk);
}

TEST(LinkVerdictTest, NamesRoundTrip) {
  for (LinkVerdict v : {kOk, kSlow, kDown}) EXPECT_EQ(ParseLinkVerdict(LinkVerdictName(v)), v);
  EXPECT_EQ(ParseLinkVerdict("up"), std::nullopt);
}

}  // namespace
}  // namespace topoplace::telemetry
