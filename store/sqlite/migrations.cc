#include "store/sqlite/migrations.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace topoplace::store {

absl::StatusOr<int> SchemaVersion(SqliteDb& db, absl::string_view component) {
  TP_RETURN_IF_ERROR(
      db.Exec("CREATE TABLE IF NOT EXISTS schema_migrations ("
              " component TEXT NOT NULL, version INTEGER NOT NULL, applied_at INTEGER NOT NULL,"
              " PRIMARY KEY (component, version));"));
  TP_ASSIGN_OR_RETURN(SqliteStatement query,
                      db.Prepare("SELECT COALESCE(MAX(version), 0) FROM schema_migrations "
                                 "WHERE component = ?1"));
  query.BindText(1, component);
  TP_ASSIGN_OR_RETURN(bool row, query.Step());
  return row ? static_cast<int>(query.ColumnInt(0)) : 0;
}

absl::StatusOr<std::unique_ptr<SqliteDb>> OpenMigrated(const std::string& path,
                                                       Durability durability,
                                                       absl::string_view component,
                                                       std::span<const Migration> migrations) {
  TP_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db, SqliteDb::Open(path, durability));
  TP_RETURN_IF_ERROR(ApplyMigrations(*db, component, migrations));
  return db;
}

absl::Status ApplyMigrations(SqliteDb& db, absl::string_view component,
                             std::span<const Migration> migrations) {
  TP_ASSIGN_OR_RETURN(int current, SchemaVersion(db, component));
  int known = migrations.empty() ? 0 : migrations.back().version;
  if (current > known) {
    return absl::FailedPreconditionError(
        absl::StrCat("database '", db.path(), "': schema of ", component, " is version ", current,
                     " but this build knows only up to ", known, "; use a newer topoplaced"));
  }
  for (const Migration& m : migrations) {
    if (m.version <= current) continue;
    absl::Status s = db.InTransaction([&]() -> absl::Status {
      TP_RETURN_IF_ERROR(db.Exec(m.sql));
      TP_ASSIGN_OR_RETURN(SqliteStatement record,
                          db.Prepare("INSERT INTO schema_migrations VALUES "
                                     "(?1, ?2, CAST(strftime('%s','now') AS INTEGER))"));
      record.BindText(1, component);
      record.BindInt(2, m.version);
      return record.Run();
    });
    if (!s.ok()) {
      return absl::Status(s.code(), absl::StrCat("migrating ", component, " to version ", m.version,
                                                 ": ", s.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace topoplace::store
