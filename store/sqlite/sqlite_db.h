// A small RAII layer over SQLite: open a database file in WAL mode, run statements with
// bound parameters, and group changes into one transaction that either commits whole or
// rolls back. SQLite errors become absl::Status values naming the statement.
//
//   TP_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db, SqliteDb::Open("/var/lib/tp.db"));
//   TP_RETURN_IF_ERROR(db->InTransaction([&]() -> absl::Status {
//     TP_ASSIGN_OR_RETURN(SqliteStatement insert, db->Prepare("INSERT INTO t VALUES (?1)"));
//     insert.BindInt(1, 7);
//     return insert.Run();
//   }));
//
// Thread safety: a SqliteDb is one connection and is NOT thread-safe; callers serialise
// access (the ledger and the snapshot store each hold a mutex around their connection).
#ifndef TOPOPLACE_STORE_SQLITE_SQLITE_DB_H_
#define TOPOPLACE_STORE_SQLITE_SQLITE_DB_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

struct sqlite3;
struct sqlite3_stmt;

namespace topoplace::store {

// How hard each commit waits for the disk. kFull survives power loss; kNormal survives a
// crashed or killed process (the WAL is in the OS page cache) but may lose the last
// transactions on power loss.
enum class Durability { kFull, kNormal };

// One prepared statement. Bind parameters are 1-based. Movable, not copyable.
class SqliteStatement {
 public:
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&& other) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement();

  void BindInt(int index, int64_t value);
  void BindDouble(int index, double value);
  void BindText(int index, absl::string_view value);
  void BindNull(int index);

  // Steps once. Returns true when a row is available, false when done.
  absl::StatusOr<bool> Step();
  // Steps until done, for statements that return no rows.
  absl::Status Run();
  // Makes the statement runnable again; bindings are kept until rebound.
  absl::Status Reset();

  // Column accessors for the current row (0-based).
  int64_t ColumnInt(int index) const;
  double ColumnDouble(int index) const;
  std::string ColumnText(int index) const;
  bool ColumnIsNull(int index) const;

 private:
  friend class SqliteDb;
  SqliteStatement(sqlite3* db, sqlite3_stmt* stmt, std::string sql);
  sqlite3* db_;
  sqlite3_stmt* stmt_;
  std::string sql_;
};

class SqliteDb {
 public:
  // Opens (creating if needed) the database at `path` with journal_mode=WAL, foreign keys
  // on, and a busy timeout. Unavailable if the file cannot be opened or is not a database.
  // Errors of writes refused for lack of space or permission, or failed I/O, are
  // Unavailable, naming SQLite's reason ("database or disk is full", "attempt to write a
  // readonly database").
  static absl::StatusOr<std::unique_ptr<SqliteDb>> Open(const std::string& path,
                                                        Durability durability = Durability::kFull);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Runs one or more statements without parameters or results.
  absl::Status Exec(absl::string_view sql);
  absl::StatusOr<SqliteStatement> Prepare(absl::string_view sql);

  // Runs `body` inside BEGIN IMMEDIATE ... COMMIT. If `body` fails, or the commit fails,
  // everything it did is rolled back and its status is returned: never half-applied.
  // Unavailable, before anything runs, when the file is no longer at `path` (see
  // CheckStillInPlace).
  absl::Status InTransaction(const std::function<absl::Status()>& body);

  // OK while `path` still names the file this connection writes. Unavailable naming the
  // path once it was unlinked, renamed or replaced under the open connection (its
  // directory deleted, say): changes would go to a file nobody will open again.
  absl::Status CheckStillInPlace() const;

  // Row id of the last successful INSERT on this connection.
  int64_t LastInsertRowId() const;
  // True if SQLite opened the file read-only (the file or its file system is not writable).
  bool read_only() const;
  const std::string& path() const { return path_; }

 private:
  SqliteDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_;
  std::string path_;
};

}  // namespace topoplace::store

#endif  // TOPOPLACE_STORE_SQLITE_SQLITE_DB_H_
