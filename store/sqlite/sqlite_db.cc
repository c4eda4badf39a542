#include "store/sqlite/sqlite_db.h"

#include <sqlite3.h>
#include <unistd.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace topoplace::store {
namespace {

// Busy waits only matter when two connections share a file (tests, sqlite3 shell).
constexpr int kBusyTimeoutMs = 5000;

absl::Status SqliteError(sqlite3* db, absl::string_view what, absl::string_view sql) {
  std::string message = absl::StrCat("sqlite: ", what, ": ", sqlite3_errmsg(db));
  if (!sql.empty()) absl::StrAppend(&message, " (in: ", sql.substr(0, 120), ")");
  int code = sqlite3_errcode(db) & 0xff;
  if (code == SQLITE_BUSY || code == SQLITE_LOCKED || code == SQLITE_IOERR || code == SQLITE_FULL ||
      code == SQLITE_CANTOPEN || code == SQLITE_READONLY) {
    return absl::UnavailableError(message);
  }
  if (code == SQLITE_CONSTRAINT) return absl::AlreadyExistsError(message);
  return absl::InternalError(message);
}

}  // namespace

SqliteStatement::SqliteStatement(sqlite3* db, sqlite3_stmt* stmt, std::string sql)
    : db_(db), stmt_(stmt), sql_(std::move(sql)) {}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)), sql_(std::move(other.sql_)) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
  if (this != &other) {
    if (stmt_ != nullptr) sqlite3_finalize(stmt_);
    db_ = other.db_;
    stmt_ = std::exchange(other.stmt_, nullptr);
    sql_ = std::move(other.sql_);
  }
  return *this;
}

SqliteStatement::~SqliteStatement() {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
}

void SqliteStatement::BindInt(int index, int64_t value) { sqlite3_bind_int64(stmt_, index, value); }
void SqliteStatement::BindDouble(int index, double value) {
  sqlite3_bind_double(stmt_, index, value);
}
void SqliteStatement::BindText(int index, absl::string_view value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
}
void SqliteStatement::BindNull(int index) { sqlite3_bind_null(stmt_, index); }

absl::StatusOr<bool> SqliteStatement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteError(db_, "step", sql_);
}

absl::Status SqliteStatement::Run() {
  while (true) {
    TP_ASSIGN_OR_RETURN(bool row, Step());
    if (!row) return absl::OkStatus();
  }
}

absl::Status SqliteStatement::Reset() {
  if (sqlite3_reset(stmt_) != SQLITE_OK) return SqliteError(db_, "reset", sql_);
  return absl::OkStatus();
}

int64_t SqliteStatement::ColumnInt(int index) const { return sqlite3_column_int64(stmt_, index); }
double SqliteStatement::ColumnDouble(int index) const {
  return sqlite3_column_double(stmt_, index);
}
std::string SqliteStatement::ColumnText(int index) const {
  const unsigned char* text = sqlite3_column_text(stmt_, index);
  if (text == nullptr) return "";
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, index)));
}
bool SqliteStatement::ColumnIsNull(int index) const {
  return sqlite3_column_type(stmt_, index) == SQLITE_NULL;
}

absl::StatusOr<std::unique_ptr<SqliteDb>> SqliteDb::Open(const std::string& path,
                                                         Durability durability) {
  sqlite3* raw = nullptr;
  int rc =
      sqlite3_open_v2(path.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message =
        absl::StrCat("sqlite: cannot open '", path,
                     "': ", raw != nullptr ? sqlite3_errmsg(raw) : "out of memory");
    sqlite3_close(raw);
    return absl::UnavailableError(message);
  }
  std::unique_ptr<SqliteDb> db(new SqliteDb(raw, path));
  sqlite3_busy_timeout(raw, kBusyTimeoutMs);
  // journal_mode is the first statement to read the file: a non-database fails here.
  absl::Status s = db->Exec("PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON;");
  if (!s.ok() && sqlite3_db_readonly(raw, "main") == 1) {
    // A WAL database in a directory nobody may write (a read-only mount) cannot get its
    // -shm file. Cleanly closed, it has no -wal either and is whole in the main file:
    // open it immutable, so reads are served and every write fails as read-only.
    if (access((path + "-wal").c_str(), F_OK) != 0) {
      sqlite3* frozen = nullptr;
      const std::string uri = absl::StrCat("file:", path, "?immutable=1");
      if (sqlite3_open_v2(uri.c_str(), &frozen,
                          SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                          nullptr) == SQLITE_OK) {
        db.reset(new SqliteDb(frozen, path));
        s = db->Exec("PRAGMA foreign_keys=ON;");
      } else {
        sqlite3_close(frozen);
      }
    }
  }
  if (!s.ok()) {
    return absl::UnavailableError(
        absl::StrCat("'", path, "' is not a usable database: ", s.message()));
  }
  TP_RETURN_IF_ERROR(db->Exec(durability == Durability::kFull ? "PRAGMA synchronous=FULL;"
                                                              : "PRAGMA synchronous=NORMAL;"));
  return db;
}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

bool SqliteDb::read_only() const { return sqlite3_db_readonly(db_, "main") == 1; }

absl::Status SqliteDb::Exec(absl::string_view sql) {
  std::string text(sql);
  char* error = nullptr;
  int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &error);
  sqlite3_free(error);
  if (rc != SQLITE_OK) return SqliteError(db_, "exec", sql);
  return absl::OkStatus();
}

absl::StatusOr<SqliteStatement> SqliteDb::Prepare(absl::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db_, "prepare", sql);
  return SqliteStatement(db_, stmt, std::string(sql));
}

absl::Status SqliteDb::CheckStillInPlace() const {
  int moved = 0;
  if (sqlite3_file_control(db_, "main", SQLITE_FCNTL_HAS_MOVED, &moved) != SQLITE_OK) {
    return absl::OkStatus();  // a VFS without the check (none of ours): nothing to say
  }
  if (moved == 0) return absl::OkStatus();
  return absl::UnavailableError(absl::StrCat(
      "sqlite: '", path_,
      "' was deleted, moved or replaced while open: a change written now would be lost "
      "with the old file, so none is made; put the database back (or restore it) and "
      "restart topoplaced"));
}

absl::Status SqliteDb::InTransaction(const std::function<absl::Status()>& body) {
  TP_RETURN_IF_ERROR(CheckStillInPlace());
  // IMMEDIATE takes the write lock up front so a second connection waits instead of
  // failing half-way with SQLITE_BUSY on its first write.
  TP_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE;"));
  absl::Status status = body();
  if (status.ok()) status = Exec("COMMIT;");
  if (!status.ok()) {
    // Rollback fails harmlessly when SQLite already rolled back on its own.
    (void)Exec("ROLLBACK;");
  }
  return status;
}

int64_t SqliteDb::LastInsertRowId() const { return sqlite3_last_insert_rowid(db_); }

}  // namespace topoplace::store
