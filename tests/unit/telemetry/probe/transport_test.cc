#include "telemetry/probe/transport.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace topoplace::telemetry {
namespace {

TEST(ProbeMeasurementTest, LatencyRunsOneWarmUpPlusTheIterationsAndStopsAtTheFirstError) {
  int calls = 0;
  absl::StatusOr<double> latency = MeasureOneWayLatencyUs(7, [&] {
    ++calls;
    return absl::OkStatus();
  });
  ASSERT_TRUE(latency.ok()) << latency.status();
  EXPECT_EQ(calls, 8);
  EXPECT_GE(*latency, 0);

  calls = 0;
  absl::StatusOr<double> broken = MeasureOneWayLatencyUs(
      7, [&] { return ++calls == 3 ? absl::UnavailableError("peer gone") : absl::OkStatus(); });
  EXPECT_EQ(broken.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(calls, 3);
}

TEST(ProbeMeasurementTest, BandwidthIsPayloadBitsPerSecondInGigabits) {
  EXPECT_DOUBLE_EQ(GigabitsPerSecond(1'250'000'000, 1.0), 10.0);
  EXPECT_DOUBLE_EQ(GigabitsPerSecond(50'000'000, 0.5), 0.8);
}

}  // namespace
}  // namespace topoplace::telemetry
