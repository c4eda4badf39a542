// The port for the daemon's telemetry time series: probe results and port counters as the
// agents report them, and what the console reads back of them and of the health loop's
// history (recent health events, counter rates, the latest port readings). The SQLite
// telemetry store implements it (store/sqlite/telemetry_report_store.h), on the daemon's
// local file whatever its `store` setting; the history the health loop restores from is the
// HealthHistory port (health_history.h). Implementations are thread-safe.
#ifndef TOPOPLACE_STORE_PORTS_TELEMETRY_REPORTS_H_
#define TOPOPLACE_STORE_PORTS_TELEMETRY_REPORTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "store/ports/health_history.h"
#include "topoplace/v1/telemetry.pb.h"

namespace topoplace::store {

class TelemetryReports {
 public:
  virtual ~TelemetryReports() = default;
  // Stores every entry of the batch, or none. Returns the number stored. The caller has
  // validated the batch.
  virtual absl::StatusOr<int> AddProbeResults(const v1::ReportProbeResultsRequest& batch) = 0;
  virtual absl::StatusOr<int> AddPortCounters(const v1::ReportPortCountersRequest& batch) = 0;
  // Number of stored reports that name each endpoint (probe source/target, counter
  // endpoint).
  virtual absl::StatusOr<absl::flat_hash_map<std::string, int64_t>> ReportCounts() = 0;
  // The newest `limit` health events of any link, newest first (the console's timeline).
  virtual absl::StatusOr<std::vector<HealthEvent>> RecentHealthEvents(int limit) = 0;
  // The newest counter rate of each (endpoint, counter), at most `limit` of them, highest
  // rate first.
  virtual absl::StatusOr<std::vector<CounterRateRow>> LatestCounterRates(int limit) = 0;
  // The newest reading of each (endpoint, port), at most `limit`, by endpoint and port.
  virtual absl::StatusOr<std::vector<v1::PortCounters>> LatestPortCounters(int limit) = 0;
};

}  // namespace topoplace::store

#endif  // TOPOPLACE_STORE_PORTS_TELEMETRY_REPORTS_H_
