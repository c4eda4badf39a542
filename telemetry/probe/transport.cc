#include "telemetry/probe/transport.h"

#include "absl/strings/str_cat.h"

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

}  // namespace topoplace::telemetry
