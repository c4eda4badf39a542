#include "scheduler/placement/uplink_load.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace topoplace::sched {
namespace {

// A share far above any real offered load: a typo (35 for 0.35) rather than a fact.
constexpr double kMaxShare = 100;

}  // namespace

absl::StatusOr<std::vector<double>> ParseUplinkLoad(const Fabric& fabric, absl::string_view text,
                                                    absl::string_view source_name) {
  std::vector<double> busy(fabric.switches().size(), 0.0);
  std::vector<int> named_at(fabric.switches().size(), 0);
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    line = absl::StripAsciiWhitespace(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    const auto where = [&] { return absl::StrCat(source_name, ":", line_no, ": "); };
    std::vector<absl::string_view> parts =
        absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    if (parts.size() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat(where(), "expected 'SWITCH SHARE', got '", line, "'"));
    }
    const std::optional<SwitchId> sw = fabric.FindSwitch(parts[0]);
    if (!sw) {
      return absl::InvalidArgumentError(absl::StrCat(where(), "unknown switch '", parts[0],
                                                     "' (expected a switch of fabric '",
                                                     fabric.name(), "')"));
    }
    if (named_at[*sw] != 0) {
      return absl::InvalidArgumentError(absl::StrCat(where(), "switch '", parts[0],
                                                     "' is already given on line ",
                                                     named_at[*sw]));
    }
    double share = 0;
    if (!absl::SimpleAtod(parts[1], &share) || !std::isfinite(share) || share < 0 ||
        share > kMaxShare) {
      return absl::InvalidArgumentError(absl::StrCat(
          where(), "share of uplink capacity in use for '", parts[0],
          "': expected a number in [0, ", kMaxShare, "] (0.35 for 35%), got '", parts[1], "'"));
    }
    busy[*sw] = share;
    named_at[*sw] = line_no;
  }
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

}  // namespace topoplace::sched
