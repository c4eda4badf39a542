// Reads JSON documents shaped like our record files — a top-level object whose values are
// scalars or arrays of flat records — without building a DOM. A 33 MB fabric file would
// otherwise cost ~400 MB and most of the load time in nlohmann::json's tree.
//
//   TP_ASSIGN_OR_RETURN(FlatDocument doc, ParseFlatJson(text, "fabric.json"));
//   for (const FlatRecord& r : doc.Section("hosts")) ...
//
// Values nested deeper than a record's fields are not kept: they read as kObject/kArray,
// which callers reject as "expected a string" and so on.
#ifndef TOPOPLACE_TOPOLOGY_IO_FLAT_JSON_H_
#define TOPOPLACE_TOPOLOGY_IO_FLAT_JSON_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace topoplace {

struct JsonValue {
  enum class Kind : uint8_t { kNull, kBool, kInt, kUint, kDouble, kString, kObject, kArray };
  Kind kind = Kind::kNull;
  bool boolean = false;
  int64_t integer = 0;            // kInt
  uint64_t unsigned_integer = 0;  // kUint
  double number = 0;              // kInt, kUint and kDouble
  std::string string;             // kString

  bool is_number() const {
    return kind == Kind::kInt || kind == Kind::kUint || kind == Kind::kDouble;
  }
  bool is_integer() const { return kind == Kind::kInt || kind == Kind::kUint; }
};

using JsonFields = std::vector<std::pair<std::string, JsonValue>>;

// One element of a top-level array; `is_object` is false for a non-object element.
struct FlatRecord {
  bool is_object = false;
  JsonFields fields;  // in document order; duplicates kept
  // The first field named `key`, or nullptr.
  const JsonValue* Find(absl::string_view key) const;
};

struct FlatDocument {
  JsonFields scalars;  // top-level fields that are not arrays
  std::vector<std::pair<std::string, std::vector<FlatRecord>>> sections;
  // The records of top-level array `key`, or nullptr if absent.
  const std::vector<FlatRecord>* Section(absl::string_view key) const;
  // The top-level scalar `key`, or nullptr if absent.
  const JsonValue* Scalar(absl::string_view key) const;
};

// Parses `text`. InvalidArgument "<source>:<line>:<col>: not valid JSON: ..." on a syntax
// error, "<source>: expected a JSON object ..." if the top level is not an object.
absl::StatusOr<FlatDocument> ParseFlatJson(absl::string_view text, absl::string_view source);

}  // namespace topoplace

#endif  // TOPOPLACE_TOPOLOGY_IO_FLAT_JSON_H_
