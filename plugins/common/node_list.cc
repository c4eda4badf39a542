#include "plugins/common/node_list.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/host_name.h"
#include "base/input_file.h"
#include "base/json_depth.h"
#include "base/status_macros.h"

namespace topoplace::plugins {
namespace {

absl::Status LineError(absl::string_view source, int line, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(source, ":", line, ": ", what));
}

bool ParseIndex(absl::string_view text, uint64_t& value) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

// Expands one hostlist expression ("gpu[01-03,7]-ib[0-1]") into `out`, without recursion:
// the expression becomes literal parts and bracketed lists of number ranges, and the names
// are their product. The count, the longest name and the bytes of all names are checked
// before any name is made, and a range is never written out but counted through, so time
// and memory are bounded by what the list may expand to, whatever its padding (hardening
// round four, finding 4: 'n[' + 30,000 zeros + '0-999999]' formatted 30 GB of numbers
// before the width was checked).
class HostlistExpander {
 public:
  HostlistExpander(absl::string_view source, int line, std::vector<std::string>& out,
                   size_t& out_bytes)
      : source_(source), line_(line), out_(out), out_bytes_(out_bytes) {}

  absl::Status Expand(absl::string_view expr) {
    std::vector<Part> parts;
    uint64_t count = 1;
    size_t name_bytes = 0;
    for (size_t at = 0; at < expr.size();) {
      const size_t open = expr.find('[', at);
      const size_t stray = expr.find(']', at);
      if (open == absl::string_view::npos) {
        if (stray != absl::string_view::npos) return Error(expr, "']' without '['");
        parts.push_back(Part{std::string(expr.substr(at)), {}});
        name_bytes += expr.size() - at;
        break;
      }
      const size_t close = expr.find(']', open);
      if (close == absl::string_view::npos || stray < open) {
        return Error(expr, "unbalanced '[' ']'");
      }
      Part part{std::string(expr.substr(at, open - at)), {}};
      TP_RETURN_IF_ERROR(ParseRanges(expr, expr.substr(open + 1, close - open - 1), part));
      name_bytes += part.literal.size() + part.width;
      count *= part.count;  // each factor is at most kMaxNodeListNames: no overflow
      if (name_bytes > kMaxHostNameBytes) return TooLong(expr);
      if (count + out_.size() > kMaxNodeListNames) return TooMany();
      parts.push_back(std::move(part));
      at = close + 1;
    }
    if (name_bytes > kMaxHostNameBytes) return TooLong(expr);
    // count <= kMaxNodeListNames and name_bytes <= kMaxHostNameBytes: no overflow.
    if (out_bytes_ + count * name_bytes > kMaxNodeListBytes) return TooManyBytes();
    // An odometer over the bracketed parts, the last turning fastest.
    std::vector<Digit> digit(parts.size());
    for (uint64_t n = 0; n < count; ++n) {
      std::string name;
      name.reserve(name_bytes);
      for (size_t i = 0; i < parts.size(); ++i) {
        name += parts[i].literal;
        if (!parts[i].ranges.empty()) parts[i].Append(digit[i], name);
      }
      TP_RETURN_IF_ERROR(Add(expr, std::move(name)));
      for (size_t i = parts.size(); i-- > 0;) {
        if (parts[i].ranges.empty()) continue;
        if (parts[i].Advance(digit[i])) break;
      }
    }
    return absl::OkStatus();
  }

 private:
  // lo..hi, each printed zero-padded to `width` digits (0: as it is).
  struct Range {
    uint64_t lo = 0;
    uint64_t hi = 0;
    int width = 0;
  };
  // Where the odometer stands in one part: a range and the offset from its low end.
  struct Digit {
    size_t range = 0;
    uint64_t offset = 0;
  };
  // A literal, then (unless it ends the expression) one bracketed list of ranges.
  struct Part {
    std::string literal;
    std::vector<Range> ranges;
    uint64_t count = 0;  // numbers in all ranges
    size_t width = 0;    // the longest number's digits
    void Append(const Digit& d, std::string& name) const {
      const Range& r = ranges[d.range];
      absl::StrAppendFormat(&name, "%0*d", r.width, r.lo + d.offset);
    }
    // Steps to the next number; false (and back to the first) after the last.
    bool Advance(Digit& d) const {
      if (d.offset < ranges[d.range].hi - ranges[d.range].lo) {
        ++d.offset;
        return true;
      }
      d.offset = 0;
      if (++d.range < ranges.size()) return true;
      d.range = 0;
      return false;
    }
  };

  absl::Status ParseRanges(absl::string_view expr, absl::string_view ranges, Part& part) const {
    if (ranges.empty()) return Error(expr, "empty '[]'");
    for (absl::string_view range : absl::StrSplit(ranges, ',')) {
      const size_t dash = range.find('-');
      const absl::string_view lo_text = range.substr(0, dash);
      const absl::string_view hi_text =
          dash == absl::string_view::npos ? lo_text : range.substr(dash + 1);
      // Checked before the numbers are read: padding alone may make a name too long.
      if (lo_text.size() > kMaxHostNameBytes || hi_text.size() > kMaxHostNameBytes) {
        return TooLong(expr);
      }
      uint64_t lo = 0, hi = 0;
      if (!ParseIndex(lo_text, lo) || !ParseIndex(hi_text, hi) || hi < lo) {
        return Error(expr, absl::StrCat("'", range, "' is not N or N-M with N <= M"));
      }
      if (hi - lo >= kMaxNodeListNames - part.count) return TooMany();
      const int width =
          lo_text.size() > 1 && lo_text[0] == '0' ? static_cast<int>(lo_text.size()) : 0;
      part.ranges.push_back(Range{lo, hi, width});
      part.count += hi - lo + 1;
      part.width = std::max({part.width, static_cast<size_t>(width), absl::StrCat(hi).size()});
    }
    return absl::OkStatus();
  }

  absl::Status Add(absl::string_view expr, std::string name) {
    if (out_.size() >= kMaxNodeListNames) return TooMany();
    if (absl::Status valid = CheckHostName("node name", name); !valid.ok()) {
      return Error(expr, valid.message());
    }
    out_bytes_ += name.size();
    out_.push_back(std::move(name));
    return absl::OkStatus();
  }
  absl::Status Error(absl::string_view expr, absl::string_view what) const {
    const bool cut = expr.size() > 64;  // a hint, not a copy of a 60 KB line
    return LineError(source_, line_,
                     absl::StrCat("hostlist '", expr.substr(0, 64), cut ? "...': " : "': ", what));
  }
  absl::Status TooLong(absl::string_view expr) const {
    return Error(expr, absl::StrCat("names longer than ", kMaxHostNameBytes, " bytes"));
  }
  absl::Status TooMany() const {
    return LineError(source_, line_,
                     absl::StrCat("more than ", kMaxNodeListNames, " node names; a typo?"));
  }
  absl::Status TooManyBytes() const {
    return LineError(
        source_, line_,
        absl::StrCat("node names of more than ", kMaxNodeListBytes, " bytes in all; a typo?"));
  }

  absl::string_view source_;
  int line_;
  std::vector<std::string>& out_;
  size_t& out_bytes_;  // of every name in out_
};

absl::StatusOr<std::vector<std::string>> ParseJsonNodeList(absl::string_view text,
                                                           absl::string_view source) {
  TP_RETURN_IF_ERROR(CheckJsonDepth(text, source));
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": not a JSON object"));
  }
  auto items = j.find("items");
  if (items == j.end() || !items->is_array()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": expected `kubectl get nodes -o json` output (an \"items\" array)"));
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < items->size(); ++i) {
    const nlohmann::json& item = (*items)[i];
    const nlohmann::json* name = nullptr;
    if (item.is_object() && item.contains("metadata") && item["metadata"].is_object()) {
      auto it = item["metadata"].find("name");
      if (it != item["metadata"].end() && it->is_string()) name = &*it;
    }
    if (name == nullptr || name->get<std::string>().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": field items[", i, "].metadata.name: expected a node name"));
    }
    TP_RETURN_IF_ERROR(CheckHostName(absl::StrCat(source, ": field items[", i, "].metadata.name"),
                                     name->get<std::string>()));
    names.push_back(name->get<std::string>());
  }
  return names;
}

// Splits a line into names at white space and at commas outside brackets.
std::vector<absl::string_view> Tokens(absl::string_view line) {
  std::vector<absl::string_view> tokens;
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i <= line.size(); ++i) {
    const bool end = i == line.size();
    const char c = end ? ' ' : line[i];
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (end || absl::ascii_isspace(static_cast<unsigned char>(c)) || (c == ',' && depth <= 0)) {
      if (i > start) tokens.push_back(line.substr(start, i - start));
      start = i + 1;
    }
  }
  return tokens;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ParseNodeList(absl::string_view text,
                                                       absl::string_view source) {
  std::vector<std::string> names;
  if (absl::StartsWith(absl::StripLeadingAsciiWhitespace(text), "{")) {
    TP_ASSIGN_OR_RETURN(names, ParseJsonNodeList(text, source));
  } else {
    int line_no = 0;
    size_t bytes = 0;
    for (absl::string_view line : absl::StrSplit(text, '\n')) {
      ++line_no;
      line = line.substr(0, line.find('#'));
      HostlistExpander expander(source, line_no, names, bytes);
      for (absl::string_view token : Tokens(line)) {
        if (absl::StartsWith(token, "node/")) token.remove_prefix(5);
        if (token.empty()) continue;
        TP_RETURN_IF_ERROR(expander.Expand(token));
      }
    }
  }
  if (names.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": no node name; expected node names, Slurm hostlists or kubectl output"));
  }
  return names;
}

absl::StatusOr<std::vector<std::string>> LoadNodeList(const std::string& path) {
  TP_ASSIGN_OR_RETURN(const std::string text, ReadInputFile(path, kMaxNodeListBytes, "node list"));
  return ParseNodeList(text, path);
}

}  // namespace topoplace::plugins
