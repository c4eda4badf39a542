// Where the link-health loop keeps its history: the health changes it decided (so a
// restarted daemon restores every link's state), the counter rates it derived, and the
// pruning of old time series. The daemon's SQLite telemetry store implements it, and
// with etcd the history shared by replicas (store/etcd/etcd_health_history.h).
#ifndef TOPOPLACE_STORE_PORTS_HEALTH_HISTORY_H_
#define TOPOPLACE_STORE_PORTS_HEALTH_HISTORY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace topoplace::store {

struct HealthEvent {
  std::string link;  // "a--b"
  std::string from;
  std::string to;
  std::string reason;
  int64_t at_unix_ms = 0;
};

struct CounterRateRow {
  std::string endpoint;
  std::string counter;
  double per_second = 0;
  int64_t at_unix_ms = 0;
};

class HealthHistory {
 public:
  virtual ~HealthHistory() = default;
  // Appends the events, all or none.
  virtual absl::Status AddHealthEvents(const std::vector<HealthEvent>& events) = 0;
  // The newest event of every link that has one.
  virtual absl::StatusOr<std::vector<HealthEvent>> LatestHealthEvents() = 0;
  // Appends the rates, all or none.
  virtual absl::Status AddCounterRates(const std::vector<CounterRateRow>& rows) = 0;
  // Deletes time-series rows measured before `cutoff_unix_ms`; returns how many went.
  virtual absl::StatusOr<int64_t> Prune(int64_t cutoff_unix_ms) = 0;
  // Writes again what an earlier AddHealthEvents could not (a history that keeps it for
  // that); called on every tick. The default has nothing to retry.
  virtual absl::Status RetryUnwritten() { return absl::OkStatus(); }
};

}  // namespace topoplace::store

#endif  // TOPOPLACE_STORE_PORTS_HEALTH_HISTORY_H_
