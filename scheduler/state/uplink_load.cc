#include "scheduler/state/uplink_load.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "scheduler/state/text_records.h"
#include "topology/base/status_macros.h"

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
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read uplink load file '", path, "'"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ParseUplinkLoad(fabric, buffer.str(), path);
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
