// Finds the line on which each record of a JSON document's top-level arrays starts, so
// errors found after parsing (a dangling link, a duplicate name) can point at a line.
// nlohmann::json keeps no positions, hence this one cheap pass over the raw text.
#ifndef TOPOPLACE_TOPOLOGY_IO_JSON_LINES_H_
#define TOPOPLACE_TOPOLOGY_IO_JSON_LINES_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace topoplace {

// Maps each top-level key whose value is an array to the 1-based line of each element.
// Tolerates malformed input (it is only used after a successful parse).
absl::flat_hash_map<std::string, std::vector<int>> RecordLines(absl::string_view json_text);

// 1-based line and column of a byte offset.
struct TextPosition {
  int line = 1;
  int column = 1;
};
TextPosition PositionOf(absl::string_view text, size_t offset);

}  // namespace topoplace

#endif  // TOPOPLACE_TOPOLOGY_IO_JSON_LINES_H_
