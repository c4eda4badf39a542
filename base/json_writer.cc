#include "base/json_writer.h"

#include <array>
#include <cassert>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "base/json_string.h"
// nlohmann's own double formatting (Grisu2, printf-%g-like layout), the function its
// dump calls: the one way to write its exact digits. Header-only; Debian's nlohmann-json3.
#include "nlohmann/detail/conversions/to_chars.hpp"

namespace topoplace {

void JsonWriter::NewLine(size_t depth) {
  out_.push_back('\n');
  out_.append(depth * static_cast<size_t>(indent_), ' ');
}

void JsonWriter::NextEntry() {
  if (levels_.back().members++ > 0) out_.push_back(',');
  NewLine(levels_.size());
}

void JsonWriter::BeforeValue() {
  if (levels_.empty()) return;        // the document's root
  if (levels_.back().object) return;  // Key wrote the member's separator
  NextEntry();
}

void JsonWriter::Open(char bracket) {
  BeforeValue();
  out_.push_back(bracket);
  levels_.push_back(Level{bracket == '{', 0});
}

void JsonWriter::Close(char bracket) {
  assert(!levels_.empty() && levels_.back().object == (bracket == '}'));
  const bool empty = levels_.back().members == 0;
  levels_.pop_back();
  if (!empty) NewLine(levels_.size());  // an empty one is "{}" or "[]"
  out_.push_back(bracket);
}

void JsonWriter::Key(absl::string_view key) {
  assert(!levels_.empty() && levels_.back().object);
  NextEntry();
  AppendJsonString(out_, key);
  out_ += ": ";
}

void JsonWriter::String(absl::string_view text) {
  BeforeValue();
  AppendJsonString(out_, text);
}

void JsonWriter::Bool(bool value) {
  BeforeValue();
  out_ += value ? "true" : "false";
}

void JsonWriter::Null() {
  BeforeValue();
  out_ += "null";
}

void JsonWriter::Strings(const std::vector<std::string>& items) {
  BeginArray();
  for (const std::string& s : items) String(s);
  EndArray();
}

void JsonWriter::Int(int64_t value) {
  BeforeValue();
  absl::StrAppend(&out_, value);
}

void JsonWriter::Uint(uint64_t value) {
  BeforeValue();
  absl::StrAppend(&out_, value);
}

void JsonWriter::Double(double value) {
  BeforeValue();
  if (!std::isfinite(value)) {
    out_ += "null";  // as nlohmann writes NaN and infinities
    return;
  }
  std::array<char, 64> buffer;  // nlohmann's own number buffer is 64 bytes
  const char* end = nlohmann::detail::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out_.append(buffer.data(), static_cast<size_t>(end - buffer.data()));
}

}  // namespace topoplace
