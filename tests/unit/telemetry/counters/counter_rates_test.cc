#include "telemetry/counters/counter_rates.h"

#include <gtest/gtest.h>

namespace topoplace::telemetry {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1000);

TEST(CounterRatesTest, RateFromDelta) {
  CounterRates r;
  EXPECT_EQ(r.Update("k", 17, kT0).step, CounterStep::kFirst);
  CounterRate rate = r.Update("k", 37, kT0 + absl::Seconds(10));
  EXPECT_EQ(rate.step, CounterStep::kRate);
  EXPECT_EQ(rate.delta, 20u);
  EXPECT_DOUBLE_EQ(*rate.per_second, 2.0);  // 20 events / 10 s
}

TEST(CounterRatesTest, ResetYieldsNoRateAndRestartsFromTheNewValue) {
  CounterRates r;
  r.Update("k", 1000, kT0);
  CounterRate reset = r.Update("k", 3, kT0 + absl::Seconds(1));
  EXPECT_EQ(reset.step, CounterStep::kReset);
  EXPECT_FALSE(reset.per_second.has_value());
  CounterRate next = r.Update("k", 13, kT0 + absl::Seconds(6));
  EXPECT_DOUBLE_EQ(*next.per_second, 2.0);  // (13 - 3) / 5 s
}

TEST(CounterRatesTest, ThirtyTwoBitWrap) {
  CounterRates r;
  r.Update("k", 0xFFFFFFF0u, kT0, 32);
  CounterRate wrapped = r.Update("k", 0x10, kT0 + absl::Seconds(1), 32);
  EXPECT_EQ(wrapped.step, CounterStep::kWrapped);
  EXPECT_EQ(wrapped.delta, 0x20u);  // 0x10 to the top, 0x10 after it
}

TEST(CounterRatesTest, ImplausibleWrapIsAReset) {
  CounterRates r;
  r.Update("k", 100, kT0, 32);  // far from the top: a decrease cannot be a wrap
  EXPECT_EQ(r.Update("k", 50, kT0 + absl::Seconds(1), 32).step, CounterStep::kReset);
}

TEST(CounterRatesTest, SaturatingCountersTreatDecreaseAsReset) {
  CounterRates r;
  r.Update("k", 65535, kT0);
  EXPECT_EQ(r.Update("k", 0, kT0 + absl::Seconds(1)).step, CounterStep::kReset);
}

TEST(CounterRatesTest, SameTimestampGivesNoRate) {
  CounterRates r;
  r.Update("k", 1, kT0);
  EXPECT_EQ(r.Update("k", 5, kT0).step, CounterStep::kSameTime);
}

}  // namespace
}  // namespace topoplace::telemetry
