#include "scheduler/ledger/ack_watermark.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace topoplace::ledger {
namespace {

// Fixed size, far below a disk sector, so a rewrite in place is never half old, half new
// on the filesystems we run on; the checksum catches it if it ever is.
constexpr size_t kRecordBytes = 256;
constexpr char kMagic[] = "topoplace-ledger-watermark/v1";

uint64_t Fnv1a(absl::string_view text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string Body(const Watermark& m) {
  std::string body = absl::StrCat(kMagic, " id=", m.ledger_id, " epoch=", m.epoch,
                                  " seq=", m.event_seq, " alloc=", m.allocation);
  if (!m.store.empty()) absl::StrAppend(&body, " store=", m.store);
  return body;
}

std::string Record(const Watermark& m) {
  const std::string body = Body(m);
  std::string line = absl::StrFormat("%s sum=%016x\n", body, Fnv1a(body));
  line.resize(kRecordBytes, ' ');
  line.back() = '\n';
  return line;
}

std::optional<Watermark> ParseRecord(absl::string_view text) {
  const size_t end = text.find('\n');
  if (end == absl::string_view::npos) return std::nullopt;
  absl::string_view line = text.substr(0, end);
  const size_t sum_at = line.rfind(" sum=");
  if (sum_at == absl::string_view::npos) return std::nullopt;
  if (absl::StrFormat("%016x", Fnv1a(line.substr(0, sum_at))) != line.substr(sum_at + 5)) {
    return std::nullopt;
  }
  Watermark m;
  bool magic = false;
  for (absl::string_view field : absl::StrSplit(line.substr(0, sum_at), ' ')) {
    if (field == kMagic) {
      magic = true;
    } else if (absl::ConsumePrefix(&field, "id=")) {
      m.ledger_id = std::string(field);
    } else if (absl::ConsumePrefix(&field, "epoch=")) {
      if (!absl::SimpleAtoi(field, &m.epoch)) return std::nullopt;
    } else if (absl::ConsumePrefix(&field, "seq=")) {
      if (!absl::SimpleAtoi(field, &m.event_seq)) return std::nullopt;
    } else if (absl::ConsumePrefix(&field, "alloc=")) {
      if (!absl::SimpleAtoi(field, &m.allocation)) return std::nullopt;
    } else if (absl::ConsumePrefix(&field, "store=")) {
      m.store = std::string(field);
    }
  }
  if (!magic || m.ledger_id.empty()) return std::nullopt;
  return m;
}

absl::Status Errno(absl::string_view what, const std::string& path) {
  return absl::UnavailableError(
      absl::StrCat("ledger watermark '", path, "': ", what, ": ", std::strerror(errno)));
}

}  // namespace

std::string WatermarkFile::NewLedgerId() {
  std::random_device random;
  return absl::StrFormat("%08x%08x%08x%08x", random(), random(), random(), random());
}

absl::StatusOr<std::unique_ptr<WatermarkFile>> WatermarkFile::Open(const std::string& path,
                                                                   bool sync) {
  std::optional<Watermark> loaded;
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0 && (errno == EROFS || errno == EACCES || errno == EPERM)) {
    // Readable for the check at start-up; Write will say it cannot write.
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  }
  if (fd >= 0) {
    char buffer[kRecordBytes + 1] = {};
    const ssize_t n = ::pread(fd, buffer, kRecordBytes, 0);
    // Empty: created, then the process stopped before the first record; nothing was
    // acknowledged through it yet.
    if (n > 0) loaded = ParseRecord(absl::string_view(buffer, static_cast<size_t>(n)));
    if (n != 0 && !loaded) {
      ::close(fd);
      return absl::DataLossError(
          absl::StrCat("ledger watermark '", path,
                       "' is damaged (no valid record); it records what the "
                       "ledger acknowledged, so the database cannot be checked against it"));
    }
  } else if (errno == ENOENT) {
    // Created whole under a temporary name, then renamed, so it never exists half written.
    const std::string temp = path + ".tmp";
    fd = ::open(temp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
    if (fd < 0) return Errno("create", temp);
    if (::rename(temp.c_str(), path.c_str()) != 0) {
      ::close(fd);
      return Errno("rename", temp);
    }
  } else {
    return Errno("open", path);
  }
  return std::unique_ptr<WatermarkFile>(new WatermarkFile(path, fd, sync, std::move(loaded)));
}

WatermarkFile::~WatermarkFile() { ::close(fd_); }

absl::Status WatermarkFile::Write(const Watermark& mark) {
  const std::string record = Record(mark);
  if (::pwrite(fd_, record.data(), record.size(), 0) != static_cast<ssize_t>(record.size())) {
    return Errno("write", path_);
  }
  if (sync_ && ::fdatasync(fd_) != 0) return Errno("flush", path_);
  if (!loaded_) {
    // First record of a new file: make its directory entry durable too.
    loaded_ = mark;
    const std::string dir = std::filesystem::path(path_).parent_path().string();
    const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      ::fsync(dfd);
      ::close(dfd);
    }
  }
  return absl::OkStatus();
}

}  // namespace topoplace::ledger
