#include "base/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace topoplace {

absl::StatusOr<std::string> ReadInputFile(const std::string& path, size_t max_bytes,
                                          absl::string_view what, InputKind kind) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) {
    return absl::NotFoundError(
        absl::StrCat(what, " '", path, "' cannot be read: ", std::strerror(errno)));
  }
  const bool pipe = S_ISFIFO(info.st_mode) && kind == InputKind::kFileOrPipe;
  if (!S_ISREG(info.st_mode) && !pipe) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " '", path, "' is not a regular file (a FIFO, device, socket or directory)"));
  }
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(
        absl::StrCat(what, " '", path, "' cannot be read: ", std::strerror(errno)));
  }
  std::string bytes;
  // st_size may be 0 (procfs) or a page (sysfs): read to the end, but never past the bound.
  bytes.reserve(std::min<size_t>(static_cast<size_t>(info.st_size), max_bytes));
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      close(fd);
      return absl::DataLossError(
          absl::StrCat(what, " '", path, "': read error: ", std::strerror(error)));
    }
    if (n == 0) break;
    if (bytes.size() + static_cast<size_t>(n) > max_bytes) {
      close(fd);
      return absl::InvalidArgumentError(
          absl::StrCat(what, " '", path, "' is larger than the ", max_bytes, " bytes it may be"));
    }
    bytes.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return bytes;
}

}  // namespace topoplace
