#include "telemetry/counters/sysfs_counters.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace topoplace::telemetry {
namespace {

namespace fs = std::filesystem;

// Counter files are tiny; a bigger one is not a counter.
constexpr size_t kMaxCounterFileBytes = 64;

absl::StatusOr<uint64_t> ReadCounterFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path.string(), ": cannot be read"));
  std::string text(kMaxCounterFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxCounterFileBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        path.string(), ": larger than ", kMaxCounterFileBytes, " bytes; not a counter file"));
  }
  return ParseCounterText(path.string(), text);
}

// Adds every regular file of `dir` to `values`; a missing directory is fine when optional.
absl::Status ReadCounterDir(const fs::path& dir, bool required,
                            std::map<std::string, uint64_t>& values) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    if (!required) return absl::OkStatus();
    return absl::NotFoundError(absl::StrCat(dir.string(), ": no such counter directory"));
  }
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
    if (!entry.is_regular_file(error)) continue;
    TP_ASSIGN_OR_RETURN(uint64_t v, ReadCounterFile(entry.path()));
    values[entry.path().filename().string()] = v;
  }
  if (error) {
    return absl::UnavailableError(absl::StrCat(dir.string(), ": ", error.message()));
  }
  return absl::OkStatus();
}

uint64_t Get(const PortCounterSet& set, const char* name) {
  auto it = set.values.find(name);
  return it == set.values.end() ? 0 : it->second;
}

}  // namespace

absl::StatusOr<uint64_t> ParseCounterText(absl::string_view path, absl::string_view text) {
  absl::string_view digits = absl::StripAsciiWhitespace(text);
  uint64_t value = 0;
  const bool all_digits =
      !digits.empty() && digits.find_first_not_of("0123456789") == absl::string_view::npos;
  if (!all_digits || !absl::SimpleAtoi(digits, &value)) {
    std::string shown(text.substr(0, 32));
    for (char& c : shown) {
      if (!absl::ascii_isprint(static_cast<unsigned char>(c))) c = '?';
    }
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": expected one non-negative decimal integer below 2^64, got '", shown, "'"));
  }
  return value;
}

absl::StatusOr<PortCounterSet> ReadInfinibandPort(const std::string& root,
                                                  const std::string& device, int port) {
  const fs::path base =
      fs::path(root) / "sys/class/infiniband" / device / "ports" / std::to_string(port);
  PortCounterSet set{device, port, {}};
  TP_RETURN_IF_ERROR(ReadCounterDir(base / "counters", true, set.values));
  TP_RETURN_IF_ERROR(ReadCounterDir(base / "hw_counters", false, set.values));
  return set;
}

absl::StatusOr<PortCounterSet> ReadNetDevice(const std::string& root, const std::string& netdev) {
  const fs::path base = fs::path(root) / "sys/class/net" / netdev;
  PortCounterSet set{netdev, 0, {}};
  TP_RETURN_IF_ERROR(ReadCounterDir(base / "statistics", true, set.values));
  std::error_code error;
  if (fs::is_regular_file(base / "carrier_down_count", error)) {
    TP_ASSIGN_OR_RETURN(set.values["carrier_down_count"],
                        ReadCounterFile(base / "carrier_down_count"));
  }
  return set;
}

std::optional<uint64_t> ExactCounter(double value) {
  constexpr double kMaxExact = 9007199254740992.0;  // 2^53: larger doubles skip integers
  if (!(value >= 0) || value > kMaxExact || value != std::floor(value)) return std::nullopt;
  return static_cast<uint64_t>(value);
}

PortTotals Summarise(const PortCounterSet& set) {
  PortTotals t;
  if (set.port > 0) {
    t.rx_errors = Get(set, "symbol_error") + Get(set, "port_rcv_errors") +
                  Get(set, "port_rcv_remote_physical_errors") +
                  Get(set, "local_link_integrity_errors");
    t.tx_discards = Get(set, "port_xmit_discards");
    t.ecn_marked = Get(set, "np_ecn_marked_roce_packets");
    t.cnp_sent = Get(set, "np_cnp_sent");
    t.link_downs = Get(set, "link_downed");
    return t;
  }
  t.rx_errors = Get(set, "rx_errors");
  t.tx_discards = Get(set, "tx_dropped");
  t.link_downs = Get(set, "carrier_down_count");
  return t;
}

}  // namespace topoplace::telemetry
