// Who sent a MUNGE credential (client/munge_credential.h): munged on this host checks
// it was made with the cluster's shared key, within its time to live, and never decoded
// before, and says which uid and gid made it. Slurm clusters run munged on every node.
#ifndef TOPOPLACE_API_SERVER_GUARDS_MUNGE_IDENTITY_H_
#define TOPOPLACE_API_SERVER_GUARDS_MUNGE_IDENTITY_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace topoplace::server {

struct MungeIdentity {
  uint32_t uid = 0;
  uint32_t gid = 0;
};

// The identity in `credential`, decoded by the munged at `socket`. PermissionDenied with
// munge's reason (expired, replayed, another key, not a credential); Unavailable when
// munged cannot be reached.
absl::StatusOr<MungeIdentity> DecodeMungeCredential(const std::string& socket,
                                                    const std::string& credential);

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_GUARDS_MUNGE_IDENTITY_H_
