#include "store/sqlite/telemetry_report_store.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "store/sqlite/migrations.h"

namespace topoplace::store {
namespace {

// The rows of a query selecting link, from_state, to_state, reason, at_unix_ms.
absl::StatusOr<std::vector<store::HealthEvent>> ReadHealthEvents(SqliteStatement& query) {
  std::vector<store::HealthEvent> events;
  while (true) {
    TP_ASSIGN_OR_RETURN(bool row, query.Step());
    if (!row) return events;
    events.push_back({query.ColumnText(0), query.ColumnText(1), query.ColumnText(2),
                      query.ColumnText(3), query.ColumnInt(4)});
  }
}

constexpr Migration kMigrations[] = {
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
    {2,
     "ALTER TABLE probe_results ADD COLUMN transport TEXT NOT NULL DEFAULT 'tcp';"
     "CREATE INDEX probe_results_time ON probe_results (measured_unix_ms);"
     "CREATE INDEX port_counters_time ON port_counters (measured_unix_ms);"
     "CREATE TABLE counter_rates ("
     " endpoint TEXT NOT NULL, counter TEXT NOT NULL, per_second REAL NOT NULL,"
     " measured_unix_ms INTEGER NOT NULL);"
     "CREATE INDEX counter_rates_time ON counter_rates (measured_unix_ms);"
     "CREATE TABLE health_events ("
     " id INTEGER PRIMARY KEY AUTOINCREMENT, link TEXT NOT NULL, from_state TEXT NOT NULL,"
     " to_state TEXT NOT NULL, reason TEXT NOT NULL, at_unix_ms INTEGER NOT NULL);"
     "CREATE INDEX health_events_link ON health_events (link, id);"},
    {3,
     "ALTER TABLE port_counters ADD COLUMN tx_bytes INTEGER NOT NULL DEFAULT 0;"
     "ALTER TABLE port_counters ADD COLUMN peer TEXT NOT NULL DEFAULT '';"},
};

// SQLite integers are signed 64-bit; counters above 2^63 are clamped rather than wrapped.
int64_t Clamp(uint64_t v) { return v > INT64_MAX ? INT64_MAX : static_cast<int64_t>(v); }

// Inserts every row of `rows` with the statement `sql`, all or none: `bind(insert, row)`
// binds one row's parameters.
template <typename Rows, typename Bind>
absl::Status InsertAll(SqliteDb& db, absl::string_view sql, const Rows& rows, const Bind& bind) {
  return db.InTransaction([&]() -> absl::Status {
    TP_ASSIGN_OR_RETURN(SqliteStatement insert, db.Prepare(sql));
    for (const auto& row : rows) {
      bind(insert, row);
      TP_RETURN_IF_ERROR(insert.Run());
      TP_RETURN_IF_ERROR(insert.Reset());
    }
    return absl::OkStatus();
  });
}

}  // namespace

absl::StatusOr<std::unique_ptr<TelemetryReportStore>> TelemetryReportStore::Open(
    const std::string& path, Durability durability) {
  TP_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db,
                      OpenMigrated(path, durability, "telemetry", kMigrations));
  return std::unique_ptr<TelemetryReportStore>(new TelemetryReportStore(std::move(db)));
}

absl::StatusOr<int> TelemetryReportStore::AddProbeResults(
    const v1::ReportProbeResultsRequest& batch) {
  absl::MutexLock lock(&mu_);
  TP_RETURN_IF_ERROR(
      InsertAll(*db_,
                "INSERT INTO probe_results (reporter, source, target, latency_us, bandwidth_gbps,"
                " reachable, measured_unix_ms, transport) VALUES (?1,?2,?3,?4,?5,?6,?7,?8)",
                batch.results(), [&](SqliteStatement& insert, const v1::ProbeResult& r) {
                  insert.BindText(1, batch.reporter());
                  insert.BindText(2, r.source());
                  insert.BindText(3, r.target());
                  insert.BindDouble(4, r.latency_us());
                  insert.BindDouble(5, r.bandwidth_gbps());
                  insert.BindInt(6, r.reachable() ? 1 : 0);
                  insert.BindInt(7, r.measured_unix_ms());
                  insert.BindText(8, r.transport().empty() ? "tcp" : r.transport());
                }));
  return batch.results_size();
}

absl::StatusOr<int> TelemetryReportStore::AddPortCounters(
    const v1::ReportPortCountersRequest& batch) {
  absl::MutexLock lock(&mu_);
  TP_RETURN_IF_ERROR(
      InsertAll(*db_,
                "INSERT INTO port_counters (reporter, endpoint, port, rx_errors, tx_discards,"
                " ecn_marked, cnp_sent, link_downs, measured_unix_ms, tx_bytes, peer)"
                " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)",
                batch.counters(), [&](SqliteStatement& insert, const v1::PortCounters& c) {
                  insert.BindText(1, batch.reporter());
                  insert.BindText(2, c.endpoint());
                  insert.BindInt(3, c.port());
                  insert.BindInt(4, Clamp(c.rx_errors()));
                  insert.BindInt(5, Clamp(c.tx_discards()));
                  insert.BindInt(6, Clamp(c.ecn_marked()));
                  insert.BindInt(7, Clamp(c.cnp_sent()));
                  insert.BindInt(8, Clamp(c.link_downs()));
                  insert.BindInt(9, c.measured_unix_ms());
                  insert.BindInt(10, Clamp(c.tx_bytes()));
                  insert.BindText(11, c.peer());
                }));
  return batch.counters_size();
}

absl::StatusOr<absl::flat_hash_map<std::string, int64_t>> TelemetryReportStore::ReportCounts() {
  absl::MutexLock lock(&mu_);
  TP_ASSIGN_OR_RETURN(SqliteStatement query,
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

absl::Status TelemetryReportStore::AddHealthEvents(const std::vector<HealthEvent>& events) {
  absl::MutexLock lock(&mu_);
  return InsertAll(*db_,
                   "INSERT INTO health_events (link, from_state, to_state, reason, at_unix_ms)"
                   " VALUES (?1,?2,?3,?4,?5)",
                   events, [](SqliteStatement& insert, const HealthEvent& e) {
                     insert.BindText(1, e.link);
                     insert.BindText(2, e.from);
                     insert.BindText(3, e.to);
                     insert.BindText(4, e.reason);
                     insert.BindInt(5, e.at_unix_ms);
                   });
}

absl::StatusOr<std::vector<HealthEvent>> TelemetryReportStore::LatestHealthEvents() {
  absl::MutexLock lock(&mu_);
  TP_ASSIGN_OR_RETURN(
      SqliteStatement query,
      db_->Prepare("SELECT link, from_state, to_state, reason, at_unix_ms FROM health_events"
                   " WHERE id IN (SELECT MAX(id) FROM health_events GROUP BY link) ORDER BY id"));
  return ReadHealthEvents(query);
}

absl::Status TelemetryReportStore::AddCounterRates(const std::vector<CounterRateRow>& rows) {
  absl::MutexLock lock(&mu_);
  return InsertAll(*db_, "INSERT INTO counter_rates VALUES (?1,?2,?3,?4)", rows,
                   [](SqliteStatement& insert, const CounterRateRow& r) {
                     insert.BindText(1, r.endpoint);
                     insert.BindText(2, r.counter);
                     insert.BindDouble(3, r.per_second);
                     insert.BindInt(4, r.at_unix_ms);
                   });
}

absl::StatusOr<std::vector<HealthEvent>> TelemetryReportStore::RecentHealthEvents(int limit) {
  absl::MutexLock lock(&mu_);
  TP_ASSIGN_OR_RETURN(SqliteStatement query,
                      db_->Prepare("SELECT link, from_state, to_state, reason, at_unix_ms"
                                   " FROM health_events ORDER BY id DESC LIMIT ?1"));
  query.BindInt(1, limit);
  return ReadHealthEvents(query);
}

absl::StatusOr<std::vector<CounterRateRow>> TelemetryReportStore::LatestCounterRates(int limit) {
  absl::MutexLock lock(&mu_);
  // SQLite takes the other columns of a MAX() aggregate from the row holding the maximum.
  TP_ASSIGN_OR_RETURN(
      SqliteStatement query,
      db_->Prepare("SELECT endpoint, counter, per_second, MAX(measured_unix_ms) FROM counter_rates"
                   " GROUP BY endpoint, counter ORDER BY per_second DESC, endpoint LIMIT ?1"));
  query.BindInt(1, limit);
  std::vector<CounterRateRow> rates;
  while (true) {
    TP_ASSIGN_OR_RETURN(bool row, query.Step());
    if (!row) return rates;
    rates.push_back(
        {query.ColumnText(0), query.ColumnText(1), query.ColumnDouble(2), query.ColumnInt(3)});
  }
}

absl::StatusOr<std::vector<v1::PortCounters>> TelemetryReportStore::LatestPortCounters(int limit) {
  absl::MutexLock lock(&mu_);
  TP_ASSIGN_OR_RETURN(
      SqliteStatement query,
      db_->Prepare("SELECT endpoint, port, rx_errors, tx_discards, ecn_marked, cnp_sent,"
                   " link_downs, tx_bytes, peer, MAX(measured_unix_ms) FROM port_counters"
                   " GROUP BY endpoint, port ORDER BY endpoint, port LIMIT ?1"));
  query.BindInt(1, limit);
  std::vector<v1::PortCounters> readings;
  while (true) {
    TP_ASSIGN_OR_RETURN(bool row, query.Step());
    if (!row) return readings;
    v1::PortCounters& c = readings.emplace_back();
    c.set_endpoint(query.ColumnText(0));
    c.set_port(static_cast<int32_t>(query.ColumnInt(1)));
    c.set_rx_errors(static_cast<uint64_t>(query.ColumnInt(2)));
    c.set_tx_discards(static_cast<uint64_t>(query.ColumnInt(3)));
    c.set_ecn_marked(static_cast<uint64_t>(query.ColumnInt(4)));
    c.set_cnp_sent(static_cast<uint64_t>(query.ColumnInt(5)));
    c.set_link_downs(static_cast<uint64_t>(query.ColumnInt(6)));
    c.set_tx_bytes(static_cast<uint64_t>(query.ColumnInt(7)));
    c.set_peer(query.ColumnText(8));
    c.set_measured_unix_ms(query.ColumnInt(9));
  }
}

absl::StatusOr<int64_t> TelemetryReportStore::Prune(int64_t cutoff_unix_ms) {
  absl::MutexLock lock(&mu_);
  int64_t removed = 0;
  TP_RETURN_IF_ERROR(db_->InTransaction([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    for (const char* table : {"probe_results", "port_counters", "counter_rates"}) {
      TP_ASSIGN_OR_RETURN(
          SqliteStatement del,
          db_->Prepare(absl::StrCat("DELETE FROM ", table, " WHERE measured_unix_ms < ?1")));
      del.BindInt(1, cutoff_unix_ms);
      TP_RETURN_IF_ERROR(del.Run());
      TP_ASSIGN_OR_RETURN(SqliteStatement changes, db_->Prepare("SELECT changes()"));
      TP_ASSIGN_OR_RETURN(bool row, changes.Step());
      if (row) removed += changes.ColumnInt(0);
    }
    return absl::OkStatus();
  }));
  return removed;
}

}  // namespace topoplace::store
