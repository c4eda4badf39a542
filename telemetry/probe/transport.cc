#include "telemetry/probe/transport.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace topoplace::telemetry {

absl::Status ValidateProbeOptions(const ProbeOptions& o) {
  constexpr int kMaxBytes = 16 << 20;
  if (o.latency_iterations < 1 || o.latency_iterations > 10000) {
    return absl::InvalidArgumentError(
        absl::StrCat("latency_iterations: expected 1..10000, got ", o.latency_iterations));
  }
  if (o.latency_bytes < 1 || o.latency_bytes > kMaxBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("latency_bytes: expected 1..", kMaxBytes, ", got ", o.latency_bytes));
  }
  if (o.bandwidth_block_bytes < 1 || o.bandwidth_block_bytes > kMaxBytes) {
    return absl::InvalidArgumentError(absl::StrCat("bandwidth_block_bytes: expected 1..", kMaxBytes,
                                                   ", got ", o.bandwidth_block_bytes));
  }
  if (o.bandwidth_duration < absl::ZeroDuration() || o.bandwidth_duration > absl::Seconds(60)) {
    return absl::InvalidArgumentError("bandwidth_duration: expected 0..60 s");
  }
  if (o.timeout <= absl::ZeroDuration() || o.timeout > absl::Seconds(60)) {
    return absl::InvalidArgumentError("timeout: expected (0, 60 s]");
  }
  return absl::OkStatus();
}

absl::StatusOr<double> MeasureOneWayLatencyUs(int iterations,
                                              absl::FunctionRef<absl::Status()> round_trip) {
  std::vector<double> round_trips_us;
  round_trips_us.reserve(static_cast<size_t>(iterations));
  for (int i = 0; i <= iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    TP_RETURN_IF_ERROR(round_trip());
    const auto end = std::chrono::steady_clock::now();
    if (i == 0) continue;  // warm-up
    round_trips_us.push_back(std::chrono::duration<double, std::micro>(end - start).count());
  }
  std::nth_element(round_trips_us.begin(), round_trips_us.begin() + round_trips_us.size() / 2,
                   round_trips_us.end());
  return round_trips_us[round_trips_us.size() / 2] / 2;
}

double GigabitsPerSecond(uint64_t bytes, double seconds) {
  return static_cast<double>(bytes) * 8 / seconds / 1e9;
}

}  // namespace topoplace::telemetry
