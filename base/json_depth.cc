#include "base/json_depth.h"

#include "absl/strings/str_cat.h"
#include "base/json_scan.h"

namespace topoplace {

absl::Status CheckJsonDepth(absl::string_view text, absl::string_view what, int max_depth) {
  int depth = 0;
  JsonStringTracker strings;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (strings.Step(c) != JsonStringTracker::Where::kOutside) continue;
    if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, ": JSON nested deeper than ", max_depth, " levels at byte ", i));
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return absl::OkStatus();
}

}  // namespace topoplace
