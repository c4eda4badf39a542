// Where each byte of JSON text falls relative to its strings, for the scanners that walk
// JSON without parsing it (the nesting guard of json_depth.h, the fabric file's line
// finder). Quotes escaped with a backslash do not end a string.
//
//   JsonStringTracker strings;
//   for (char c : text) if (strings.Step(c) == JsonStringTracker::Where::kOutside) ...;
#ifndef TOPOPLACE_BASE_JSON_SCAN_H_
#define TOPOPLACE_BASE_JSON_SCAN_H_

namespace topoplace {

class JsonStringTracker {
 public:
  // kOpens and kCloses are the quotes themselves; kInside everything between them.
  enum class Where { kOutside, kOpens, kInside, kCloses };

  Where Step(char c) {
    if (!in_string_) {
      if (c != '"') return Where::kOutside;
      in_string_ = true;
      return Where::kOpens;
    }
    if (escaped_) {
      escaped_ = false;
    } else if (c == '\\') {
      escaped_ = true;
    } else if (c == '"') {
      in_string_ = false;
      return Where::kCloses;
    }
    return Where::kInside;
  }

 private:
  bool in_string_ = false;
  bool escaped_ = false;
};

}  // namespace topoplace

#endif  // TOPOPLACE_BASE_JSON_SCAN_H_
