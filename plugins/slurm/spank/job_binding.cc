#include "plugins/slurm/spank/job_binding.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "plugins/slurm/spank/deferred_placement.h"

namespace topoplace::slurm {

std::string SubmitRequestId(uint32_t uid, uint64_t nonce) {
  return absl::StrFormat("slurm-submit:%u:%016x", uid, nonce);
}

absl::Status CheckJobMayBind(const AllocationOwner& a, uint32_t job_id, uint32_t uid,
                             BindAction action) {
  const bool committed_to_job = a.external_id == absl::StrCat("slurm:", job_id);
  const bool made_for_job = a.request_id == StartRequestId(job_id);
  const bool made_by_user = absl::StartsWith(a.request_id, absl::StrCat("slurm-submit:", uid, ":"));
  if (committed_to_job || (a.reserved && (made_for_job || made_by_user))) {
    return absl::OkStatus();
  }
  const std::string owner =
      !a.external_id.empty() ? absl::StrCat("committed to '", a.external_id, "'")
      : a.request_id.empty() ? std::string("reserved without a Slurm request id")
                             : absl::StrCat("reserved as '", a.request_id, "'");
  return absl::PermissionDeniedError(
      absl::StrCat(a.allocation_id, " is ", owner, ", not job ", job_id, "'s (user ", uid,
                   "): the job's environment names an allocation that is not its own; ",
                   action == BindAction::kCommit ? "not committed" : "not released"));
}

}  // namespace topoplace::slurm
