#include "topology/discovery/grouped_warning.h"

#include "absl/strings/str_cat.h"

namespace topoplace::discovery {

void AddGroupedWarning(std::vector<std::string>& warnings, absl::string_view what,
                       const std::vector<std::string>& items, size_t max_listed) {
  if (items.empty()) return;
  std::string line = absl::StrCat(items.size(), " ", what, ": ");
  for (size_t i = 0; i < items.size() && i < max_listed; ++i) {
    absl::StrAppend(&line, i == 0 ? "" : ", ", items[i]);
  }
  if (items.size() > max_listed)
    absl::StrAppend(&line, ", ... (+", items.size() - max_listed, " more)");
  warnings.push_back(std::move(line));
}

}  // namespace topoplace::discovery
