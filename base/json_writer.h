// Indented JSON text written straight into a string, for documents too large to build as
// a DOM first on a hot path (a 1,024-GPU plan is ~300 kB, written on every Reserve and
// Place). The text is byte for byte what nlohmann::ordered_json's dump(2) writes for the
// same values added in the same order: the same indentation, escapes and number forms
// (nlohmann's shortest round-trip doubles, "null" for a non-finite one), so readers and
// recorded hashes see no difference.
//
//   JsonWriter w;
//   w.BeginObject();
//   w.Key("hosts");
//   w.BeginArray();
//   w.String("b00-n000");
//   w.EndArray();
//   w.Member("cost", 1.5);
//   w.EndObject();
//   std::string text = std::move(w).Take();
//
// Preconditions (not checked beyond debug asserts): inside an object every value follows a
// Key; every Begin has its End before Take; strings are UTF-8 (passed through as they are).
// Not thread-safe; one writer per document.
#ifndef TOPOPLACE_BASE_JSON_WRITER_H_
#define TOPOPLACE_BASE_JSON_WRITER_H_

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/string_view.h"

namespace topoplace {

class JsonWriter {
 public:
  // `indent` spaces per level (nlohmann's dump(indent)); must be >= 0.
  explicit JsonWriter(int indent = 2) : indent_(indent) {}

  // Room for about `bytes` of text, so a large document is not copied as it grows.
  void Reserve(size_t bytes) { out_.reserve(bytes); }

  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }
  // The next member's key, inside an object.
  void Key(absl::string_view key);

  void String(absl::string_view text);
  void Bool(bool value);
  void Null();
  // Integers as decimal, floating point as nlohmann writes a double.
  template <typename T>
  void Number(T value) {
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>);
    if constexpr (std::is_floating_point_v<T>) {
      Double(static_cast<double>(value));
    } else if constexpr (std::is_signed_v<T>) {
      Int(static_cast<int64_t>(value));
    } else {
      Uint(static_cast<uint64_t>(value));
    }
  }
  // An array of strings, on one call.
  void Strings(const std::vector<std::string>& items);
  // A value of any of the kinds above, by its C++ type: bool, a number, or text.
  template <typename T>
  void Value(const T& value) {
    if constexpr (std::is_same_v<T, bool>) {
      Bool(value);
    } else if constexpr (std::is_arithmetic_v<T>) {
      Number(value);
    } else {
      String(value);
    }
  }
  // Key(key), then Value(value): one member of an object.
  template <typename T>
  void Member(absl::string_view key, const T& value) {
    Key(key);
    Value(value);
  }

  // The text so far; the writer is spent.
  std::string Take() && { return std::move(out_); }

 private:
  struct Level {
    bool object = false;
    int members = 0;
  };
  void Open(char bracket);
  void Close(char bracket);
  // A member's or element's separator and indentation, in the innermost level.
  void NextEntry();
  // Before a value: NextEntry for an array element (a member's was written by Key).
  void BeforeValue();
  void NewLine(size_t depth);
  void Int(int64_t value);
  void Uint(uint64_t value);
  void Double(double value);

  const int indent_;
  std::string out_;
  std::vector<Level> levels_;
};

}  // namespace topoplace

#endif  // TOPOPLACE_BASE_JSON_WRITER_H_
