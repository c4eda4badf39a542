// Durable storage of telemetry reports (probe results and port counters) in SQLite, one
// transaction per batch. This is only storage: turning reports into link health verdicts
// belongs to the telemetry work (telemetry/), which will read these tables.
// Thread-safe.
#ifndef TOPOPLACE_API_SERVER_TELEMETRY_REPORT_STORE_H_
#define TOPOPLACE_API_SERVER_TELEMETRY_REPORT_STORE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "topology/store/sqlite_db.h"
#include "topoplace/v1/telemetry.pb.h"

namespace topoplace::server {

class TelemetryReportStore {
 public:
  static absl::StatusOr<std::unique_ptr<TelemetryReportStore>> Open(
      const std::string& path, store::Durability durability);

  // Stores every entry of the batch, or none. Returns the number stored.
  absl::StatusOr<int> AddProbeResults(const v1::ReportProbeResultsRequest& batch);
  absl::StatusOr<int> AddPortCounters(const v1::ReportPortCountersRequest& batch);
  // Number of stored reports that name each endpoint (probe source/target, counter
  // endpoint).
  absl::StatusOr<absl::flat_hash_map<std::string, int64_t>> ReportCounts();

 private:
  explicit TelemetryReportStore(std::unique_ptr<store::SqliteDb> db) : db_(std::move(db)) {}
  absl::Mutex mu_;
  std::unique_ptr<store::SqliteDb> db_ ABSL_GUARDED_BY(mu_);
};

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_TELEMETRY_REPORT_STORE_H_
