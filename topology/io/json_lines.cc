#include "topology/io/json_lines.h"

#include "base/json_scan.h"

namespace topoplace {

absl::flat_hash_map<std::string, std::vector<int>> RecordLines(absl::string_view text) {
  absl::flat_hash_map<std::string, std::vector<int>> lines;
  int depth = 0;
  int line = 1;
  JsonStringTracker strings;
  bool expect_element = false;  // inside a top-level array, before its next element
  size_t string_start = 0;
  std::string last_key;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    const JsonStringTracker::Where where = strings.Step(c);
    if (where == JsonStringTracker::Where::kInside) continue;
    if (where == JsonStringTracker::Where::kCloses) {
      if (depth == 1) last_key = std::string(text.substr(string_start, i - string_start));
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    if (expect_element && c != ']') lines[last_key].push_back(line);
    expect_element = false;
    switch (c) {
      case '"':
        string_start = i + 1;
        break;
      case '{':
      case '[':
        ++depth;
        expect_element = c == '[' && depth == 2;
        break;
      case '}':
      case ']':
        --depth;
        break;
      case ',':
        expect_element = depth == 2;
        break;
      default:
        break;
    }
  }
  return lines;
}

TextPosition PositionOf(absl::string_view text, size_t offset) {
  TextPosition pos;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      pos.column = 1;
    } else {
      ++pos.column;
    }
  }
  return pos;
}

}  // namespace topoplace
