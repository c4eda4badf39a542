// Versioned fabric snapshots in SQLite: each accepted fabric is stored as its canonical
// JSON text (topology/io/fabric_file.h), so a restart serves exactly what was served
// before, and older versions stay readable for audits.
//
//   TP_ASSIGN_OR_RETURN(auto store, FabricStore::Open("/var/lib/topoplace/topoplace.db"));
//   TP_ASSIGN_OR_RETURN(FabricSnapshot latest, store->Put(fabric));  // version 1, 2, ...
//
// Snapshot versions belong to the store: they start at 1 and grow by one for every Put
// whose canonical JSON differs from the latest snapshot. Thread-safe.
#ifndef TOPOPLACE_STORE_SQLITE_FABRIC_STORE_H_
#define TOPOPLACE_STORE_SQLITE_FABRIC_STORE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "store/sqlite/sqlite_db.h"
#include "topology/model/fabric.h"

namespace topoplace::store {

struct FabricSnapshot {
  uint64_t version = 0;  // store version, >= 1
  FabricPtr fabric;
};

class FabricStore {
 public:
  // Opens or creates the snapshot tables in the database file at `path`.
  static absl::StatusOr<std::unique_ptr<FabricStore>> Open(
      const std::string& path, Durability durability = Durability::kFull);

  // Stores `fabric` as the newest snapshot unless it equals the newest already; returns the
  // snapshot now current either way. One transaction.
  absl::StatusOr<FabricSnapshot> Put(FabricPtr fabric);
  // The newest snapshot, parsed back. NotFound when the store is empty.
  absl::StatusOr<FabricSnapshot> Latest();
  // A given version. NotFound if absent.
  absl::StatusOr<FabricSnapshot> Get(uint64_t version);

 private:
  explicit FabricStore(std::unique_ptr<SqliteDb> db) : db_(std::move(db)) {}
  absl::StatusOr<FabricSnapshot> Load(const char* sql, int64_t version)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  std::unique_ptr<SqliteDb> db_ ABSL_GUARDED_BY(mu_);
};

}  // namespace topoplace::store

#endif  // TOPOPLACE_STORE_SQLITE_FABRIC_STORE_H_
