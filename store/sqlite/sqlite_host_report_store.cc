#include "store/sqlite/sqlite_host_report_store.h"

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"
#include "store/sqlite/migrations.h"

namespace topoplace::store {
namespace {

constexpr Migration kMigrations[] = {
    {1,
     "CREATE TABLE host_reports ("
     " host TEXT PRIMARY KEY NOT NULL, report_json TEXT NOT NULL,"
     " received_unix_ms INTEGER NOT NULL);"},
};

class SqliteHostReportStore final : public HostReportStore {
 public:
  explicit SqliteHostReportStore(std::unique_ptr<SqliteDb> db) : db_(std::move(db)) {}
  absl::StatusOr<bool> Put(absl::string_view host, absl::string_view report_json,
                           int64_t received_unix_ms) override;
  absl::StatusOr<HostReportPage> List(absl::string_view after, int limit,
                                      size_t max_bytes) override;

 private:
  absl::Mutex mu_;
  std::unique_ptr<SqliteDb> db_ ABSL_GUARDED_BY(mu_);
};

absl::StatusOr<bool> SqliteHostReportStore::Put(absl::string_view host,
                                                absl::string_view report_json,
                                                int64_t received_unix_ms) {
  absl::MutexLock lock(&mu_);
  bool replaced = false;
  TP_RETURN_IF_ERROR(db_->InTransaction([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    TP_ASSIGN_OR_RETURN(SqliteStatement exists,
                        db_->Prepare("SELECT 1 FROM host_reports WHERE host = ?1"));
    exists.BindText(1, host);
    TP_ASSIGN_OR_RETURN(replaced, exists.Step());
    TP_ASSIGN_OR_RETURN(SqliteStatement upsert,
                        db_->Prepare("INSERT INTO host_reports VALUES (?1, ?2, ?3) "
                                     "ON CONFLICT(host) DO UPDATE SET "
                                     "report_json = excluded.report_json, "
                                     "received_unix_ms = excluded.received_unix_ms"));
    upsert.BindText(1, host);
    upsert.BindText(2, report_json);
    upsert.BindInt(3, received_unix_ms);
    return upsert.Run();
  }));
  return replaced;
}

absl::StatusOr<HostReportPage> SqliteHostReportStore::List(absl::string_view after, int limit,
                                                           size_t max_bytes) {
  absl::MutexLock lock(&mu_);
  TP_ASSIGN_OR_RETURN(SqliteStatement query,
                      db_->Prepare("SELECT host, report_json, received_unix_ms FROM host_reports"
                                   " WHERE host > ?1 ORDER BY host LIMIT ?2"));
  query.BindText(1, after);
  query.BindInt(2, int64_t{limit} + 1);  // one more says whether another page follows
  HostReportPager pager(limit, max_bytes);
  while (true) {
    TP_ASSIGN_OR_RETURN(bool row, query.Step());
    if (!row) return pager.Take();
    if (!pager.Add(StoredHostReport{.host = query.ColumnText(0),
                                    .report_json = query.ColumnText(1),
                                    .received_unix_ms = query.ColumnInt(2)})) {
      return pager.Take();
    }
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<HostReportStore>> OpenSqliteHostReportStore(const std::string& path,
                                                                           Durability durability) {
  TP_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db,
                      OpenMigrated(path, durability, "host_reports", kMigrations));
  return std::make_unique<SqliteHostReportStore>(std::move(db));
}

}  // namespace topoplace::store
