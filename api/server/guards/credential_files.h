// Reading the daemon's secrets: the admin bearer token and the per-host token table.
// Both files are refused, with the fix in the message, when anyone but the owner and
// group may read them or when a token is too short to resist guessing.
//
//   TP_ASSIGN_OR_RETURN(std::string admin, ReadTokenFile("token_file", "/etc/topoplace/token"));
//   TP_ASSIGN_OR_RETURN(HostTokens hosts, ReadHostTokensFile("/etc/topoplace/host-tokens"));
#ifndef TOPOPLACE_API_SERVER_GUARDS_CREDENTIAL_FILES_H_
#define TOPOPLACE_API_SERVER_GUARDS_CREDENTIAL_FILES_H_

#include <cstddef>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace topoplace::server {

// Shortest token accepted: 16 characters of `openssl rand -hex 32` output carry 64 bits,
// the least NIST SP 800-63B asks of a memorised secret's entropy for online guessing is far
// below that, and a 1-character token (seen accepted before) falls to 100 guesses.
inline constexpr size_t kMinTokenLength = 16;

// token -> the host name it speaks for.
using HostTokens = absl::flat_hash_map<std::string, std::string>;

// The token on the first line of `path` (surrounding blanks stripped). `key` names the
// config key in errors. NotFound if unreadable; PermissionDenied if others may read it;
// InvalidArgument if it is empty or shorter than kMinTokenLength.
absl::StatusOr<std::string> ReadTokenFile(absl::string_view key, const std::string& path);

// The longest host token table read: a line per host of the largest fabric is about 1 MB.
inline constexpr size_t kMaxHostTokensFileBytes = size_t{16} << 20;

// Lines of `HOST TOKEN` (`#` starts a comment). Each host at most once, each token unique
// and valid as ReadTokenFile's; host names valid as IsValidHostName. Errors name the line.
absl::StatusOr<HostTokens> ReadHostTokensFile(const std::string& path);

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_GUARDS_CREDENTIAL_FILES_H_
