#include "api/server/guards/request_limits.h"

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace topoplace::server {

absl::Status CheckField(absl::string_view field, absl::string_view value, size_t max_bytes,
                        bool required) {
  if (required && value.empty())
    return absl::InvalidArgumentError(absl::StrCat(field, ": required"));
  if (value.size() > max_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": at most ", max_bytes, " bytes, got ", value.size()));
  }
  return absl::OkStatus();
}

absl::Status CheckText(absl::string_view field, absl::string_view value, size_t max_bytes,
                       bool required) {
  absl::Status s = CheckField(field, value, max_bytes, required);
  return s.ok() ? CheckPrintable(field, value) : s;
}

absl::Status CheckPrintable(absl::string_view field, absl::string_view value) {
  for (size_t i = 0; i < value.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(value[i]);
    if (c < 0x20 || c == 0x7f) {
      return absl::InvalidArgumentError(absl::StrCat(field, ": control character 0x", absl::Hex(c),
                                                     " at byte ", i, " ('",
                                                     absl::CHexEscape(value.substr(0, 64)), "')"));
    }
  }
  return absl::OkStatus();
}

}  // namespace topoplace::server
