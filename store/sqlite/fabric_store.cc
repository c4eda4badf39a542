#include "store/sqlite/fabric_store.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "store/sqlite/migrations.h"
#include "topology/io/fabric_file.h"

namespace topoplace::store {
namespace {

constexpr Migration kMigrations[] = {
    {1,
     "CREATE TABLE fabric_snapshots ("
     " version INTEGER PRIMARY KEY,"
     " name TEXT NOT NULL,"
     " fabric_json TEXT NOT NULL,"
     " created_at INTEGER NOT NULL);"},
};

}  // namespace

absl::StatusOr<std::unique_ptr<FabricStore>> FabricStore::Open(const std::string& path,
                                                               Durability durability) {
  TP_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db,
                      OpenMigrated(path, durability, "fabric_store", kMigrations));
  return std::unique_ptr<FabricStore>(new FabricStore(std::move(db)));
}

absl::StatusOr<FabricSnapshot> FabricStore::Load(const char* sql, int64_t version) {
  TP_ASSIGN_OR_RETURN(SqliteStatement query, db_->Prepare(sql));
  if (version > 0) query.BindInt(1, version);
  TP_ASSIGN_OR_RETURN(bool row, query.Step());
  if (!row) {
    return absl::NotFoundError(version > 0 ? absl::StrCat("no fabric snapshot version ", version)
                                           : std::string("no fabric snapshot stored yet"));
  }
  FabricSnapshot snapshot;
  snapshot.version = static_cast<uint64_t>(query.ColumnInt(0));
  TP_ASSIGN_OR_RETURN(
      snapshot.fabric,
      ParseFabricJson(query.ColumnText(1),
                      absl::StrCat(db_->path(), "#fabric_snapshots/", snapshot.version)));
  return snapshot;
}

absl::StatusOr<FabricSnapshot> FabricStore::Latest() {
  absl::MutexLock lock(&mu_);
  return Load("SELECT version, fabric_json FROM fabric_snapshots ORDER BY version DESC LIMIT 1", 0);
}

absl::StatusOr<FabricSnapshot> FabricStore::Get(uint64_t version) {
  if (version == 0) return absl::NotFoundError("fabric snapshot versions start at 1");
  absl::MutexLock lock(&mu_);
  return Load("SELECT version, fabric_json FROM fabric_snapshots WHERE version = ?1",
              static_cast<int64_t>(version));
}

absl::StatusOr<FabricSnapshot> FabricStore::Put(FabricPtr fabric) {
  const std::string json = FabricToJson(*fabric);
  absl::MutexLock lock(&mu_);
  FabricSnapshot result{.version = 0, .fabric = fabric};
  // The latest snapshot: if it is this fabric, its version serves; `row` says one exists.
  bool row = false;
  auto find_latest = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::StatusOr<bool> {
    TP_ASSIGN_OR_RETURN(SqliteStatement latest,
                        db_->Prepare("SELECT version, fabric_json FROM fabric_snapshots "
                                     "ORDER BY version DESC LIMIT 1"));
    TP_ASSIGN_OR_RETURN(row, latest.Step());
    if (!row) return false;
    result.version = static_cast<uint64_t>(latest.ColumnInt(0));
    return latest.ColumnText(1) == json;
  };
  if (db_->read_only()) {
    // A read-only database can still serve the fabric it already holds.
    TP_ASSIGN_OR_RETURN(bool same, find_latest());
    if (same) return result;
    return absl::UnavailableError(
        absl::StrCat("fabric store: '", db_->path(), "' is read-only and does not hold fabric '",
                     fabric->name(), "' as configured; make it writable"));
  }
  TP_RETURN_IF_ERROR(db_->InTransaction([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    TP_ASSIGN_OR_RETURN(bool same, find_latest());
    if (same) return absl::OkStatus();
    result.version = row ? result.version + 1 : 1;
    TP_ASSIGN_OR_RETURN(SqliteStatement insert,
                        db_->Prepare("INSERT INTO fabric_snapshots VALUES "
                                     "(?1, ?2, ?3, CAST(strftime('%s','now') AS INTEGER))"));
    insert.BindInt(1, static_cast<int64_t>(result.version));
    insert.BindText(2, fabric->name());
    insert.BindText(3, json);
    return insert.Run();
  }));
  return result;
}

}  // namespace topoplace::store
