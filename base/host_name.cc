#include "base/host_name.h"

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace topoplace {

absl::Status CheckHostName(absl::string_view field, absl::string_view name) {
  if (name.empty() || name.size() > kMaxHostNameBytes) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": expected a host name of 1 to ",
                                                   kMaxHostNameBytes, " bytes, got ", name.size()));
  }
  const auto allowed = [](unsigned char c) {
    return absl::ascii_isalnum(c) || c == '.' || c == '-' || c == '_';
  };
  for (size_t i = 0; i < name.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (!allowed(c) || (i == 0 && !absl::ascii_isalnum(c))) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ": host name '", absl::CHexEscape(name.substr(0, 64)),
          name.size() > 64 ? "...'" : "'", " has a character not allowed at ", i,
          "; expected letters, digits, '.', '-' or '_', starting with a letter or digit"));
    }
  }
  return absl::OkStatus();
}

}  // namespace topoplace
