#include "api/server/telemetry_report_store.h"

#include "topology/base/status_macros.h"
#include "topology/store/migrations.h"

namespace topoplace::server {
namespace {

using store::SqliteStatement;

constexpr store::Migration kMigrations[] = {
    {1,
     "CREATE TABLE probe_results ("
     " reporter TEXT NOT NULL, source TEXT NOT NULL, target TEXT NOT NULL,"
     " latency_us REAL NOT NULL, bandwidth_gbps REAL NOT NULL, reachable INTEGER NOT NULL,"
     " measured_unix_ms INTEGER NOT NULL);"
     "CREATE TABLE port_counters ("
     " reporter TEXT NOT NULL, endpoint TEXT NOT NULL, port INTEGER NOT NULL,"
     " rx_errors INTEGER NOT NULL, tx_discards INTEGER NOT NULL, ecn_marked INTEGER NOT NULL,"
     " cnp_sent INTEGER NOT NULL, link_downs INTEGER NOT NULL,"
     " measured_unix_ms INTEGER NOT NULL);"},
};

// SQLite integers are signed 64-bit; counters above 2^63 are clamped rather than wrapped.
int64_t Clamp(uint64_t v) { return v > INT64_MAX ? INT64_MAX : static_cast<int64_t>(v); }

}  // namespace

absl::StatusOr<std::unique_ptr<TelemetryReportStore>> TelemetryReportStore::Open(
    const std::string& path, store::Durability durability) {
  TP_ASSIGN_OR_RETURN(std::unique_ptr<store::SqliteDb> db,
                      store::SqliteDb::Open(path, durability));
  TP_RETURN_IF_ERROR(store::ApplyMigrations(*db, "telemetry", kMigrations));
  return std::unique_ptr<TelemetryReportStore>(new TelemetryReportStore(std::move(db)));
}

absl::StatusOr<int> TelemetryReportStore::AddProbeResults(
    const v1::ReportProbeResultsRequest& batch) {
  absl::MutexLock lock(&mu_);
  TP_RETURN_IF_ERROR(db_->InTransaction([&]() -> absl::Status {
    TP_ASSIGN_OR_RETURN(SqliteStatement insert,
                        db_->Prepare("INSERT INTO probe_results VALUES (?1,?2,?3,?4,?5,?6,?7)"));
    for (const v1::ProbeResult& r : batch.results()) {
      insert.BindText(1, batch.reporter());
      insert.BindText(2, r.source());
      insert.BindText(3, r.target());
      insert.BindDouble(4, r.latency_us());
      insert.BindDouble(5, r.bandwidth_gbps());
      insert.BindInt(6, r.reachable() ? 1 : 0);
      insert.BindInt(7, r.measured_unix_ms());
      TP_RETURN_IF_ERROR(insert.Run());
      TP_RETURN_IF_ERROR(insert.Reset());
    }
    return absl::OkStatus();
  }));
  return batch.results_size();
}

absl::StatusOr<int> TelemetryReportStore::AddPortCounters(
    const v1::ReportPortCountersRequest& batch) {
  absl::MutexLock lock(&mu_);
  TP_RETURN_IF_ERROR(db_->InTransaction([&]() -> absl::Status {
    TP_ASSIGN_OR_RETURN(
        SqliteStatement insert,
        db_->Prepare("INSERT INTO port_counters VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)"));
    for (const v1::PortCounters& c : batch.counters()) {
      insert.BindText(1, batch.reporter());
      insert.BindText(2, c.endpoint());
      insert.BindInt(3, c.port());
      insert.BindInt(4, Clamp(c.rx_errors()));
      insert.BindInt(5, Clamp(c.tx_discards()));
      insert.BindInt(6, Clamp(c.ecn_marked()));
      insert.BindInt(7, Clamp(c.cnp_sent()));
      insert.BindInt(8, Clamp(c.link_downs()));
      insert.BindInt(9, c.measured_unix_ms());
      TP_RETURN_IF_ERROR(insert.Run());
      TP_RETURN_IF_ERROR(insert.Reset());
    }
    return absl::OkStatus();
  }));
  return batch.counters_size();
}

absl::StatusOr<absl::flat_hash_map<std::string, int64_t>> TelemetryReportStore::ReportCounts() {
  absl::MutexLock lock(&mu_);
  TP_ASSIGN_OR_RETURN(
      SqliteStatement query,
      db_->Prepare("SELECT name, COUNT(*) FROM ("
                   " SELECT source AS name FROM probe_results"
                   " UNION ALL SELECT target FROM probe_results"
                   " UNION ALL SELECT endpoint FROM port_counters) GROUP BY name"));
  absl::flat_hash_map<std::string, int64_t> counts;
  while (true) {
    TP_ASSIGN_OR_RETURN(bool row, query.Step());
    if (!row) return counts;
    counts[query.ColumnText(0)] = query.ColumnInt(1);
  }
}

}  // namespace topoplace::server
