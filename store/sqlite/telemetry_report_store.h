// Durable storage of telemetry in SQLite, one transaction per batch: probe results and
// port counters as reported (the probe time series), counter rates the health model
// computed, and link health change events (the model's state is restored from them on
// restart). Both telemetry ports: TelemetryReports and HealthHistory (store/ports). Prune drops
// time-series rows older than the retention; health events stay. Thread-safe.
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
#include "store/ports/health_history.h"
#include "store/ports/telemetry_reports.h"
#include "store/sqlite/sqlite_db.h"
#include "topoplace/v1/telemetry.pb.h"

namespace topoplace::store {

class TelemetryReportStore final : public HealthHistory, public TelemetryReports {
 public:
  static absl::StatusOr<std::unique_ptr<TelemetryReportStore>> Open(const std::string& path,
                                                                    Durability durability);

  absl::StatusOr<int> AddProbeResults(const v1::ReportProbeResultsRequest& batch) override;
  absl::StatusOr<int> AddPortCounters(const v1::ReportPortCountersRequest& batch) override;
  absl::StatusOr<absl::flat_hash_map<std::string, int64_t>> ReportCounts() override;
  absl::StatusOr<std::vector<HealthEvent>> RecentHealthEvents(int limit) override;
  absl::StatusOr<std::vector<CounterRateRow>> LatestCounterRates(int limit) override;
  absl::StatusOr<std::vector<v1::PortCounters>> LatestPortCounters(int limit) override;

  absl::Status AddHealthEvents(const std::vector<HealthEvent>& events) override;
  // The newest event of every link that has one, by link name.
  absl::StatusOr<std::vector<HealthEvent>> LatestHealthEvents() override;
  absl::Status AddCounterRates(const std::vector<CounterRateRow>& rows) override;
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
