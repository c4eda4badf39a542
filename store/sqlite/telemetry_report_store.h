// Durable storage of telemetry in SQLite, one transaction per batch: probe results and
// port counters as reported (the probe time series), counter rates the health model
// computed, and link health change events (the model's state is restored from them on
// restart). Prune drops time-series rows older than the retention; health events stay.
// Thread-safe.
#ifndef TOPOPLACE_STORE_SQLITE_TELEMETRY_REPORT_STORE_H_
#define TOPOPLACE_STORE_SQLITE_TELEMETRY_REPORT_STORE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "store/sqlite/sqlite_db.h"
#include "telemetry/monitor/health_history.h"
#include "topoplace/v1/telemetry.pb.h"

namespace topoplace::store {

class TelemetryReportStore final : public telemetry::HealthHistory {
 public:
  using HealthEvent = telemetry::HealthEvent;
  using CounterRateRow = telemetry::CounterRateRow;

  static absl::StatusOr<std::unique_ptr<TelemetryReportStore>> Open(const std::string& path,
                                                                    Durability durability);

  // Stores every entry of the batch, or none. Returns the number stored.
  absl::StatusOr<int> AddProbeResults(const v1::ReportProbeResultsRequest& batch);
  absl::StatusOr<int> AddPortCounters(const v1::ReportPortCountersRequest& batch);
  // Number of stored reports that name each endpoint (probe source/target, counter
  // endpoint).
  absl::StatusOr<absl::flat_hash_map<std::string, int64_t>> ReportCounts();

  absl::Status AddHealthEvents(const std::vector<HealthEvent>& events) override;
  // The newest event of every link that has one, by link name.
  absl::StatusOr<std::vector<HealthEvent>> LatestHealthEvents() override;
  absl::Status AddCounterRates(const std::vector<CounterRateRow>& rows) override;
  // The newest `limit` health events of any link, newest first (the console's timeline).
  absl::StatusOr<std::vector<HealthEvent>> RecentHealthEvents(int limit);
  // The newest counter rate of each (endpoint, counter), at most `limit` of them, highest
  // rate first.
  absl::StatusOr<std::vector<CounterRateRow>> LatestCounterRates(int limit);
  // The newest reading of each (endpoint, port), at most `limit`, by endpoint and port.
  absl::StatusOr<std::vector<v1::PortCounters>> LatestPortCounters(int limit);
  // Deletes probe results, port counters and counter rates measured before `cutoff_ms`.
  // Returns how many rows went.
  absl::StatusOr<int64_t> Prune(int64_t cutoff_unix_ms) override;

 private:
  explicit TelemetryReportStore(std::unique_ptr<SqliteDb> db) : db_(std::move(db)) {}
  absl::Mutex mu_;
  std::unique_ptr<SqliteDb> db_ ABSL_GUARDED_BY(mu_);
};

}  // namespace topoplace::store

#endif  // TOPOPLACE_STORE_SQLITE_TELEMETRY_REPORT_STORE_H_
