#include "scheduler/state/uplink_load.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "scheduler/state/text_records.h"

namespace topoplace::sched {
namespace {

// A share far above any real offered load: a typo (35 for 0.35) rather than a fact.
constexpr double kMaxShare = 100;

}  // namespace

absl::StatusOr<std::vector<double>> ParseUplinkLoad(const Fabric& fabric, absl::string_view text,
                                                    absl::string_view source_name) {
  std::vector<double> busy(fabric.switches().size(), 0.0);
  std::vector<int> named_at(fabric.switches().size(), 0);
  TP_RETURN_IF_ERROR(ForEachRecord(text, source_name, [&](const RecordLine& r) -> absl::Status {
    if (r.fields.size() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat(r.where, "expected 'SWITCH SHARE', got '", r.text, "'"));
    }
    const std::optional<SwitchId> sw = fabric.FindSwitch(r.fields[0]);
    if (!sw) {
      return absl::InvalidArgumentError(absl::StrCat(r.where, "unknown switch '", r.fields[0],
                                                     "' (expected a switch of fabric '",
                                                     fabric.name(), "')"));
    }
    if (named_at[*sw] != 0) {
      return absl::InvalidArgumentError(absl::StrCat(r.where, "switch '", r.fields[0],
                                                     "' is already given on line ", named_at[*sw]));
    }
    double share = 0;
    if (!absl::SimpleAtod(r.fields[1], &share) || !std::isfinite(share) || share < 0 ||
        share > kMaxShare) {
      return absl::InvalidArgumentError(absl::StrCat(
          r.where, "share of uplink capacity in use for '", r.fields[0],
          "': expected a number in [0, ", kMaxShare, "] (0.35 for 35%), got '", r.fields[1], "'"));
    }
    busy[*sw] = share;
    named_at[*sw] = r.line;
    return absl::OkStatus();
  }));
  return busy;
}

absl::StatusOr<std::vector<double>> LoadUplinkLoadFile(const Fabric& fabric,
                                                       const std::string& path) {
  // Non-blocking, so a FIFO or a device named here cannot hold the caller; only a regular
  // file of bounded size is read.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(
        absl::StrCat("cannot read uplink load file '", path, "': ", std::strerror(errno)));
  }
  struct stat st {};
  std::string text;
  absl::Status status;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    status = absl::InvalidArgumentError(
        absl::StrCat("uplink load file '", path, "' is not a regular file"));
  } else if (st.st_size > kMaxUplinkLoadFileBytes) {
    status = absl::InvalidArgumentError(absl::StrCat("uplink load file '", path, "' has ",
                                                     st.st_size, " bytes, more than the ",
                                                     kMaxUplinkLoadFileBytes, " allowed"));
  } else {
    text.resize(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (got < text.size()) {
      const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
      if (n <= 0) break;  // shrunk meanwhile, or an error: parse what was read
      got += static_cast<size_t>(n);
    }
    text.resize(got);
  }
  ::close(fd);
  if (!status.ok()) return status;
  return ParseUplinkLoad(fabric, text, path);
}

void KeepLargerShares(std::vector<double>& shares, const std::vector<double>& other) {
  if (shares.empty()) {
    shares = other;
    return;
  }
  for (size_t s = 0; s < shares.size() && s < other.size(); ++s) {
    shares[s] = std::max(shares[s], other[s]);
  }
}

}  // namespace topoplace::sched
