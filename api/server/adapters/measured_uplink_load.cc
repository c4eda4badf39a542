#include "api/server/adapters/measured_uplink_load.h"

#include <optional>

#include "absl/strings/str_cat.h"

namespace topoplace::server {

MeasuredUplinkLoad::MeasuredUplinkLoad(const Fabric& fabric, absl::Duration max_age)
    : fabric_(fabric), max_age_(max_age), links_(fabric, {}, {}), idle_(fabric) {}

absl::Status MeasuredUplinkLoad::Check(const v1::ReportPortCountersRequest& request) const {
  for (int i = 0; i < request.counters_size(); ++i) {
    const std::string& peer = request.counters(i).peer();
    if (peer.empty() || fabric_.FindSwitch(peer) || fabric_.FindNic(peer)) continue;
    return absl::InvalidArgumentError(
        absl::StrCat("counters[", i, "].peer: expected a switch or host/nic of fabric '",
                     fabric_.name(), "', got '", peer, "'"));
  }
  return absl::OkStatus();
}

SwitchId MeasuredUplinkLoad::UplinkSwitch(const v1::PortCounters& entry) const {
  if (entry.peer().empty()) return -1;
  const std::optional<SwitchId> lower = fabric_.FindSwitch(entry.endpoint());
  const std::optional<SwitchId> upper = fabric_.FindSwitch(entry.peer());
  if (!lower || !upper) return -1;
  for (const sched::LinkIndex::Uplink& u : links_.uplinks(*lower)) {
    if (u.upper == *upper) return *lower;
  }
  return -1;
}

void MeasuredUplinkLoad::Observe(const v1::ReportPortCountersRequest& request,
                                 absl::Time received) {
  absl::MutexLock lock(&mu_);
  for (const v1::PortCounters& entry : request.counters()) {
    const SwitchId lower = UplinkSwitch(entry);
    if (lower < 0) continue;
    const std::string key = absl::StrCat(entry.endpoint(), ":", entry.port());
    const absl::Time at =
        entry.measured_unix_ms() > 0 ? absl::FromUnixMillis(entry.measured_unix_ms()) : received;
    // PortXmitData (extended, 64-bit) saturates rather than wraps: width 0.
    const telemetry::CounterRate rate = readings_.Update(key, entry.tx_bytes(), at);
    if (rate.per_second) rates_[key] = PortRate{lower, *rate.per_second, at};
  }
}

std::vector<double> MeasuredUplinkLoad::Current(absl::Time now) {
  sched::UplinkTally tally = idle_;
  absl::MutexLock lock(&mu_);
  for (const auto& [key, rate] : rates_) {
    if (now - rate.at <= max_age_) tally.Add({{rate.lower, rate.bytes_per_second}});
  }
  return tally.busy();
}

}  // namespace topoplace::server
