#include "store/sqlite/exclusive_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace topoplace::store {

absl::StatusOr<std::unique_ptr<ExclusiveLock>> ExclusiveLock::Acquire(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0640);
  const bool writable = fd >= 0;
  if (fd < 0 && (errno == EROFS || errno == EACCES)) {
    // A read-only directory (a read-only mount): an existing lock file still locks (flock
    // needs no write access); with none, no daemon can write there, so none is needed.
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) return std::unique_ptr<ExclusiveLock>(new ExclusiveLock(-1));
  }
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot create lock file '", path, "': ", std::strerror(errno)));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    char holder[32] = {};
    const ssize_t n = ::pread(fd, holder, sizeof(holder) - 1, 0);
    ::close(fd);
    if (error != EWOULDBLOCK) {
      return absl::UnavailableError(
          absl::StrCat("cannot lock '", path, "': ", std::strerror(error)));
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "'", path, "' is held by another process (pid ",
        n > 0 ? absl::StripAsciiWhitespace(absl::string_view(holder, n)) : "unknown",
        "): one database serves one daemon; stop the other one or give this one its own "
        "db_path"));
  }
  const std::string pid = absl::StrCat(::getpid(), "\n");
  if (!writable || ::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    // The pid is only for the message; the lock itself holds.
  }
  return std::unique_ptr<ExclusiveLock>(new ExclusiveLock(fd));
}

ExclusiveLock::~ExclusiveLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace topoplace::store
