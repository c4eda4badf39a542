#include "topology/io/flat_json.h"

#include <nlohmann/json.hpp>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "topology/io/json_lines.h"

namespace topoplace {
namespace {

using Json = nlohmann::json;

// nlohmann SAX handler filling a FlatDocument. Depth 1 is inside the top-level object,
// 2 inside a section array, 3 inside a record; anything deeper is skipped.
class FlatHandler : public nlohmann::json_sax<Json> {
 public:
  explicit FlatHandler(FlatDocument& doc) : doc_(doc) {}

  bool null() override { return Scalar(JsonValue{}); }
  bool boolean(bool v) override {
    JsonValue j;
    j.kind = JsonValue::Kind::kBool;
    j.boolean = v;
    return Scalar(std::move(j));
  }
  bool number_integer(number_integer_t v) override {
    JsonValue j;
    j.kind = JsonValue::Kind::kInt;
    j.integer = v;
    j.number = static_cast<double>(v);
    return Scalar(std::move(j));
  }
  bool number_unsigned(number_unsigned_t v) override {
    JsonValue j;
    j.kind = JsonValue::Kind::kUint;
    j.unsigned_integer = v;
    j.integer = v <= static_cast<uint64_t>(INT64_MAX) ? static_cast<int64_t>(v) : INT64_MAX;
    j.number = static_cast<double>(v);
    return Scalar(std::move(j));
  }
  bool number_float(number_float_t v, const string_t&) override {
    JsonValue j;
    j.kind = JsonValue::Kind::kDouble;
    j.number = v;
    return Scalar(std::move(j));
  }
  bool string(string_t& v) override {
    JsonValue j;
    j.kind = JsonValue::Kind::kString;
    j.string = std::move(v);
    return Scalar(std::move(j));
  }
  bool binary(binary_t&) override { return Scalar(JsonValue{}); }

  bool key(string_t& k) override {
    if (skip_ > 0) return true;
    // A section or header given twice would silently win or be lost (hardening round four,
    // finding 8): the parse stops at the second.
    if (depth_ == 1 && !top_keys_.insert(k).second) {
      duplicate_ = k.substr(0, 64);
      return false;
    }
    key_ = std::move(k);
    return true;
  }

  bool start_object(std::size_t) override { return Open(JsonValue::Kind::kObject); }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(JsonValue::Kind::kArray); }
  bool end_array() override { return Close(); }

  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& e) override {
    error_position_ = position;
    error_ = e.what();
    return false;
  }

  bool top_is_object() const { return top_is_object_; }
  size_t error_position() const { return error_position_; }
  const std::string& error() const { return error_; }
  const std::string& duplicate() const { return duplicate_; }

 private:
  bool Scalar(JsonValue v) {
    if (skip_ > 0) return true;
    switch (depth_) {
      case 0:
        return false;  // the document is a bare scalar
      case 1:
        doc_.scalars.emplace_back(std::move(key_), std::move(v));
        return true;
      case 2:
        doc_.sections.back().second.emplace_back();  // a non-object record
        return true;
      default:
        doc_.sections.back().second.back().fields.emplace_back(std::move(key_), std::move(v));
        return true;
    }
  }

  bool Open(JsonValue::Kind kind) {
    if (skip_ > 0) {
      ++skip_;
      return true;
    }
    const bool is_object = kind == JsonValue::Kind::kObject;
    switch (depth_) {
      case 0:
        if (!is_object) return false;
        top_is_object_ = true;
        break;
      case 1:
        if (is_object) {
          JsonValue nested;
          nested.kind = kind;
          doc_.scalars.emplace_back(std::move(key_), std::move(nested));
          skip_ = 1;
          return true;
        }
        doc_.sections.emplace_back(std::move(key_), std::vector<FlatRecord>());
        break;
      case 2:
        doc_.sections.back().second.emplace_back().is_object = is_object;
        if (!is_object) {
          skip_ = 1;
          return true;
        }
        break;
      default: {
        JsonValue nested;
        nested.kind = kind;
        doc_.sections.back().second.back().fields.emplace_back(std::move(key_), std::move(nested));
        skip_ = 1;
        return true;
      }
    }
    ++depth_;
    return true;
  }

  bool Close() {
    if (skip_ > 0) {
      --skip_;
      return true;
    }
    --depth_;
    return true;
  }

  FlatDocument& doc_;
  std::string key_;
  int depth_ = 0;
  int skip_ = 0;  // > 0 while inside a value nested too deep to keep
  bool top_is_object_ = false;
  absl::flat_hash_set<std::string> top_keys_;
  std::string duplicate_;  // a top-level key given twice
  size_t error_position_ = 0;
  std::string error_;
};

template <typename T>
const T* FindByKey(const std::vector<std::pair<std::string, T>>& items, absl::string_view key) {
  for (const auto& [k, v] : items) {
    if (k == key) return &v;
  }
  return nullptr;
}

}  // namespace

const JsonValue* FlatRecord::Find(absl::string_view key) const { return FindByKey(fields, key); }

const std::vector<FlatRecord>* FlatDocument::Section(absl::string_view key) const {
  return FindByKey(sections, key);
}

const JsonValue* FlatDocument::Scalar(absl::string_view key) const {
  return FindByKey(scalars, key);
}

absl::StatusOr<FlatDocument> ParseFlatJson(absl::string_view text, absl::string_view source) {
  FlatDocument doc;
  FlatHandler handler(doc);
  const bool ok = Json::sax_parse(text.data(), text.data() + text.size(), &handler);
  if (ok) return doc;
  if (!handler.duplicate().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": top-level key '", handler.duplicate(),
                                                   "' appears twice; give it once"));
  }
  if (!handler.error().empty()) {
    const size_t at = handler.error_position() == 0 ? 0 : handler.error_position() - 1;
    TextPosition pos = PositionOf(text, at);
    std::string what = handler.error();
    if (auto colon = what.find(": "); colon != std::string::npos) what = what.substr(colon + 2);
    return absl::InvalidArgumentError(
        absl::StrCat(source, ":", pos.line, ":", pos.column, ": not valid JSON: ", what));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(source, ": expected a JSON object at the top level"));
}

}  // namespace topoplace
