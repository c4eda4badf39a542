// Versioned schema migrations. Each component (fabric store, ledger, telemetry) owns an
// ordered list of migrations; the versions applied so far are recorded per component in
// `schema_migrations`, so a database file upgrades step by step and never re-runs a step.
//
//   constexpr Migration kLedgerMigrations[] = {{1, "CREATE TABLE ..."}, {2, "ALTER ..."}};
//   TP_RETURN_IF_ERROR(ApplyMigrations(db, "ledger", kLedgerMigrations));
//
// Thread safety: as SqliteDb (callers serialise).
#ifndef TOPOPLACE_STORE_SQLITE_MIGRATIONS_H_
#define TOPOPLACE_STORE_SQLITE_MIGRATIONS_H_

#include <memory>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "store/sqlite/sqlite_db.h"

namespace topoplace::store {

struct Migration {
  int version;      // 1, 2, 3, ... strictly increasing
  const char* sql;  // one or more statements
};

// Applies every migration of `component` newer than the recorded version, each in its own
// transaction together with its version record. FailedPrecondition if the file was written
// by a newer build (a recorded version this build does not know): refusing beats guessing.
absl::Status ApplyMigrations(SqliteDb& db, absl::string_view component,
                             std::span<const Migration> migrations);

// Opens (creating) the database at `path` and brings `component`'s tables up to date:
// how every store of the daemon (fabric snapshots, ledger, host reports, telemetry) opens
// its tables in the one database file.
absl::StatusOr<std::unique_ptr<SqliteDb>> OpenMigrated(const std::string& path,
                                                       Durability durability,
                                                       absl::string_view component,
                                                       std::span<const Migration> migrations);

// The highest applied version of `component`, 0 if none.
absl::StatusOr<int> SchemaVersion(SqliteDb& db, absl::string_view component);

}  // namespace topoplace::store

#endif  // TOPOPLACE_STORE_SQLITE_MIGRATIONS_H_
