#include "api/server/guards/credential_files.h"

#include <sys/stat.h>

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "api/server/guards/request_limits.h"
#include "base/input_file.h"
#include "base/status_macros.h"

namespace topoplace::server {
namespace {

// Secrets readable by anyone on the host are not secrets: every local user (and every
// container that mounts the file) could act as the daemon's clients.
absl::Status CheckNotWorldReadable(absl::string_view key, const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat(key, ": '", path, "' cannot be read"));
  }
  if ((st.st_mode & (S_IROTH | S_IWOTH)) != 0) {
    return absl::PermissionDeniedError(absl::StrCat(
        key, ": '", path, "' may be read or written by every user (mode ",
        absl::StrCat(absl::Hex(st.st_mode & 07777)), "); restrict it: chmod 0640 or 0600"));
  }
  return absl::OkStatus();
}

absl::Status CheckTokenStrength(absl::string_view where, absl::string_view token) {
  if (token.size() < kMinTokenLength) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": a token needs at least ", kMinTokenLength, " characters, got ",
                     token.size(), "; make one with `openssl rand -hex 32`"));
  }
  for (char c : token) {
    if (!absl::ascii_isgraph(static_cast<unsigned char>(c))) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": a token may hold only printable characters without blanks"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> ReadTokenFile(absl::string_view key, const std::string& path) {
  TP_RETURN_IF_ERROR(CheckNotWorldReadable(key, path));
  TP_ASSIGN_OR_RETURN(const std::string text, ReadInputFile(path, kMaxCredentialFileBytes, key));
  const absl::string_view line = absl::string_view(text).substr(0, text.find('\n'));
  std::string token(absl::StripAsciiWhitespace(line));
  if (token.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(key, ": '", path, "' holds no token"));
  }
  TP_RETURN_IF_ERROR(CheckTokenStrength(absl::StrCat(key, ": '", path, "'"), token));
  return token;
}

absl::StatusOr<HostTokens> ReadHostTokensFile(const std::string& path) {
  constexpr absl::string_view kKey = "host_tokens_file";
  TP_RETURN_IF_ERROR(CheckNotWorldReadable(kKey, path));
  TP_ASSIGN_OR_RETURN(const std::string file, ReadInputFile(path, kMaxHostTokensFileBytes, kKey));
  HostTokens tokens;
  absl::flat_hash_set<std::string> hosts;
  int number = 0;
  for (absl::string_view text : absl::StrSplit(file, '\n')) {
    const std::string where = absl::StrCat(path, ":", ++number);
    if (size_t hash = text.find('#'); hash != absl::string_view::npos) text = text.substr(0, hash);
    std::vector<absl::string_view> fields =
        absl::StrSplit(text, absl::ByAnyChar(" \t\r"), absl::SkipEmpty());
    if (fields.empty()) continue;
    if (fields.size() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": expected 'HOST TOKEN', got ", fields.size(), " fields"));
    }
    TP_RETURN_IF_ERROR(CheckHostName(where, fields[0]));
    TP_RETURN_IF_ERROR(CheckTokenStrength(where, fields[1]));
    if (!hosts.insert(std::string(fields[0])).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": host '", fields[0], "' has a token already"));
    }
    if (!tokens.emplace(std::string(fields[1]), std::string(fields[0])).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": this token is given to another host already"));
    }
  }
  return tokens;
}

}  // namespace topoplace::server
