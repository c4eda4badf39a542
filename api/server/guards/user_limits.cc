#include "api/server/guards/user_limits.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "api/server/guards/authorizer.h"

namespace topoplace::server {

absl::Status CheckUserTtl(const UserLimits& limits, absl::Duration ttl) {
  if (ttl <= limits.max_ttl) return absl::OkStatus();
  return absl::PermissionDeniedError(
      absl::StrCat("ttl_seconds: a Slurm user may hold a reservation for at most ",
                   absl::ToInt64Seconds(limits.max_ttl), " s (user_max_ttl_seconds), asked ",
                   absl::ToInt64Seconds(ttl)));
}

absl::Status CheckUserReserve(const UserLimits& limits, uint32_t uid, int64_t priority,
                              int64_t gpus, absl::Duration ttl, store::Ledger& ledger) {
  if (priority > limits.max_priority) {
    return absl::PermissionDeniedError(absl::StrCat(
        "job_spec: priority=", priority, " is above what a Slurm user may ask (",
        limits.max_priority, ", user_max_priority); an admin credential may ask more"));
  }
  if (absl::Status s = CheckUserTtl(limits, ttl); !s.ok()) return s;
  const std::string prefix = SlurmSubmitKeyPrefix(uid);
  int held = 0;
  int64_t held_gpus = 0;
  ledger.ForEachLive([&](const ledger::Allocation& a) {
    if (a.state != ledger::AllocationState::kReserved || !absl::StartsWith(a.request_id, prefix)) {
      return;
    }
    ++held;
    held_gpus += static_cast<int64_t>(a.gpus.size());
  });
  if (held >= limits.max_reservations) {
    return absl::PermissionDeniedError(
        absl::StrCat("uid ", uid, " holds ", held,
                     " uncommitted reservations, the most a Slurm "
                     "user may (user_max_reservations); commit or release one first"));
  }
  if (limits.max_reserved_gpus > 0 && held_gpus + gpus > limits.max_reserved_gpus) {
    return absl::PermissionDeniedError(
        absl::StrCat("uid ", uid, " holds ", held_gpus, " GPUs in uncommitted reservations; ", gpus,
                     " more would pass the ", limits.max_reserved_gpus,
                     " a Slurm user may hold (user_max_reserved_gpus)"));
  }
  return absl::OkStatus();
}

}  // namespace topoplace::server
