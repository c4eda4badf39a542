#include "plugins/slurm/hostlist.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace topoplace::slurm {
namespace {

struct Split {
  std::string prefix;
  int digits = 0;       // length of the numeric suffix; 0 when there is none
  bool padded = false;  // the suffix has a leading zero ("007")
  uint64_t number = 0;
};

Split SplitName(const std::string& name) {
  size_t digits = 0;
  while (digits < name.size() && digits < 18 &&
         std::isdigit(static_cast<unsigned char>(name[name.size() - 1 - digits]))) {
    ++digits;
  }
  Split s;
  s.prefix = name.substr(0, name.size() - digits);
  s.digits = static_cast<int>(digits);
  if (digits > 0) {
    const std::string suffix = name.substr(name.size() - digits);
    s.number = std::stoull(suffix);
    s.padded = digits > 1 && suffix[0] == '0';
  }
  return s;
}

}  // namespace

std::string CompressHostlist(const std::vector<std::string>& names) {
  std::vector<Split> splits;
  splits.reserve(names.size());
  // Zero-padded widths seen per prefix: "n099" makes width 3 padded, and then "n100"
  // belongs to the same group because padding it to 3 digits changes nothing.
  std::map<std::string, std::vector<int>> padded_widths;
  for (const std::string& name : names) {
    splits.push_back(SplitName(name));
    if (splits.back().padded) padded_widths[splits.back().prefix].push_back(splits.back().digits);
  }
  // Group key: (prefix, width); width 0 = no suffix, -1 = natural numbers without padding.
  std::vector<std::pair<std::string, int>> order;
  std::map<std::pair<std::string, int>, std::vector<uint64_t>> groups;
  for (const Split& s : splits) {
    int width = s.digits == 0 ? 0 : -1;
    if (s.padded) {
      width = s.digits;
    } else if (s.digits > 0) {
      const std::vector<int>& widths = padded_widths[s.prefix];
      if (std::find(widths.begin(), widths.end(), s.digits) != widths.end()) width = s.digits;
    }
    auto key = std::make_pair(s.prefix, width);
    auto [it, inserted] = groups.try_emplace(key);
    if (inserted) order.push_back(key);
    it->second.push_back(s.number);
  }
  std::vector<std::string> parts;
  for (const auto& key : order) {
    const auto& [prefix, width] = key;
    std::vector<uint64_t>& numbers = groups[key];
    if (width == 0) {
      parts.push_back(prefix);
      continue;
    }
    std::sort(numbers.begin(), numbers.end());
    numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
    auto pad = [width = width](uint64_t n) {
      return width < 0 ? absl::StrCat(n) : absl::StrFormat("%0*d", width, n);
    };
    if (numbers.size() == 1) {
      parts.push_back(prefix + pad(numbers[0]));
      continue;
    }
    std::vector<std::string> ranges;
    for (size_t i = 0; i < numbers.size();) {
      size_t j = i;
      while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
      ranges.push_back(i == j ? pad(numbers[i])
                              : absl::StrCat(pad(numbers[i]), "-", pad(numbers[j])));
      i = j + 1;
    }
    parts.push_back(absl::StrCat(prefix, "[", absl::StrJoin(ranges, ","), "]"));
  }
  return absl::StrJoin(parts, ",");
}

}  // namespace topoplace::slurm
