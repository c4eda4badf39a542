#include "api/server/request_limits.h"

#include "absl/strings/str_cat.h"

namespace topoplace::server {

absl::Status CheckField(absl::string_view field, absl::string_view value, size_t max_bytes,
                        bool required) {
  if (required && value.empty()) return absl::InvalidArgumentError(absl::StrCat(field, ": required"));
  if (value.size() > max_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": at most ", max_bytes,
                                                   " bytes, got ", value.size()));
  }
  return absl::OkStatus();
}

}  // namespace topoplace::server
