#include "topology/store/fabric_store.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "topology/base/status_macros.h"
#include "topology/io/fabric_file.h"
#include "topology/store/migrations.h"

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
  TP_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db, SqliteDb::Open(path, durability));
  TP_RETURN_IF_ERROR(ApplyMigrations(*db, "fabric_store", kMigrations));
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
  TP_ASSIGN_OR_RETURN(snapshot.fabric,
                      ParseFabricJson(query.ColumnText(1),
                                      absl::StrCat(db_->path(), "#fabric_snapshots/",
                                                   snapshot.version)));
  return snapshot;
}

absl::StatusOr<FabricSnapshot> FabricStore::Latest() {
  absl::MutexLock lock(&mu_);
  return Load("SELECT version, fabric_json FROM fabric_snapshots ORDER BY version DESC LIMIT 1",
              0);
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
  TP_RETURN_IF_ERROR(db_->InTransaction([&]() -> absl::Status {
    TP_ASSIGN_OR_RETURN(SqliteStatement latest,
                        db_->Prepare("SELECT version, fabric_json FROM fabric_snapshots "
                                     "ORDER BY version DESC LIMIT 1"));
    TP_ASSIGN_OR_RETURN(bool row, latest.Step());
    if (row && latest.ColumnText(1) == json) {
      result.version = static_cast<uint64_t>(latest.ColumnInt(0));
      return absl::OkStatus();
    }
    result.version = row ? static_cast<uint64_t>(latest.ColumnInt(0)) + 1 : 1;
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
