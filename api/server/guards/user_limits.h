// What a Slurm user (a MUNGE credential of a uid that is not an admin's) may hold through
// Reserve and Renew: a job spec's priority is self-declared, and reservations made before
// Slurm starts the job are outside Slurm's QOS and limits, so the daemon bounds them itself
// (hardening round four, finding 7: uid 1000 reserved all 1,024 GPUs at priority
// 4294967295 for 86,400 s and renewed it, and `topoplace preempt` then named everyone else
// as victims). Admin credentials are not bounded here.
#ifndef TOPOPLACE_API_SERVER_GUARDS_USER_LIMITS_H_
#define TOPOPLACE_API_SERVER_GUARDS_USER_LIMITS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "store/ports/ledger.h"

namespace topoplace::server {

struct UserLimits {
  int64_t max_priority = 0;                 // user_max_priority: the job spec's default priority
  int max_reservations = 16;                // user_max_reservations: live, uncommitted, per uid
  int64_t max_reserved_gpus = 0;            // user_max_reserved_gpus: in them together; 0: no cap
  absl::Duration max_ttl = absl::Hours(1);  // user_max_ttl_seconds: per Reserve or Renew
};

// OK if uid `uid` may reserve `gpus` GPUs at `priority` for `ttl` beside the reservations
// it holds now in `ledger` (those made with its submit key and not yet committed).
// PermissionDenied naming the limit, its configuration key and what was asked otherwise.
absl::Status CheckUserReserve(const UserLimits& limits, uint32_t uid, int64_t priority,
                              int64_t gpus, absl::Duration ttl, store::Ledger& ledger);
// OK if a Renew for `ttl` is within max_ttl; PermissionDenied otherwise.
absl::Status CheckUserTtl(const UserLimits& limits, absl::Duration ttl);

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_GUARDS_USER_LIMITS_H_
