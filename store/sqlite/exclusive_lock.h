// One process per database: an advisory lock (flock) on `<path>.lock`, held for the life
// of the object, so a second topoplaced pointed at the same database file refuses to start
// instead of answering every other request from its own view of the ledger.
//
//   TP_ASSIGN_OR_RETURN(auto lock, ExclusiveLock::Acquire(db_path + ".lock"));
//
// The lock goes with the process (a crash or SIGKILL frees it); the file stays and holds
// the holder's pid for the error message. Thread-safe (immutable after Acquire).
#ifndef TOPOPLACE_STORE_SQLITE_EXCLUSIVE_LOCK_H_
#define TOPOPLACE_STORE_SQLITE_EXCLUSIVE_LOCK_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace topoplace::store {

class ExclusiveLock {
 public:
  // Creates `path` if needed and locks it. FailedPrecondition naming the file and the
  // holder's pid when another open file holds it (another process, or this one);
  // Unavailable naming the file when it cannot be created or locked. On a read-only file
  // system an existing lock file is locked read-only, and a missing one is not needed.
  static absl::StatusOr<std::unique_ptr<ExclusiveLock>> Acquire(const std::string& path);
  ~ExclusiveLock();
  ExclusiveLock(const ExclusiveLock&) = delete;
  ExclusiveLock& operator=(const ExclusiveLock&) = delete;

 private:
  explicit ExclusiveLock(int fd) : fd_(fd) {}
  int fd_;  // -1: nothing to lock (read-only file system)
};

}  // namespace topoplace::store

#endif  // TOPOPLACE_STORE_SQLITE_EXCLUSIVE_LOCK_H_
