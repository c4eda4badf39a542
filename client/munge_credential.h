// A MUNGE credential (Slurm's own authentication, https://dun.github.io/munge/) naming
// this process's uid, for one call to topoplaced: the SPANK plugin and the CLI send it as
// `authorization: MUNGE <credential>` instead of a bearer token, so Slurm users need no
// shared secret, and the daemon learns who asks (api/server/guards/munge_identity.h). munged
// refuses to decode a credential twice, so each call attempt gets a fresh one.
#ifndef TOPOPLACE_CLIENT_MUNGE_CREDENTIAL_H_
#define TOPOPLACE_CLIENT_MUNGE_CREDENTIAL_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"

struct munge_ctx;  // libmunge's context (munge.h)

namespace topoplace::client {

// munged's socket when none is named (Debian's munge package, and Slurm's default).
inline constexpr char kDefaultMungeSocket[] = "/run/munge/munge.socket.2";
// The authorization metadata's scheme for a MUNGE credential.
inline constexpr char kMungeScheme[] = "MUNGE ";

// A libmunge context talking to the munged at `socket` (encoding here, decoding in
// api/server/guards/munge_identity.h).
using MungeContext = std::unique_ptr<struct munge_ctx, void (*)(struct munge_ctx*)>;
absl::StatusOr<MungeContext> OpenMungeContext(const std::string& socket);

// A new credential from the munged listening at `socket`. Unavailable naming the socket
// and munge's reason when munged cannot be reached or refuses.
absl::StatusOr<std::string> EncodeMungeCredential(const std::string& socket);

}  // namespace topoplace::client

#endif  // TOPOPLACE_CLIENT_MUNGE_CREDENTIAL_H_
