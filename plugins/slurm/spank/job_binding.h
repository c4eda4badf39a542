// Which Slurm job may commit or release which allocation. The job's control environment
// names its plan id, and every submitter can set that environment, so the node-side
// prolog and epilog (running as root, with the job's true id and user from slurmd) check
// the allocation against the job before acting:
// - commit: the allocation was reserved for this job's start (deferred jobs), or by this
//   job's user at submission (its request id carries the uid), or is committed to it
//   already;
// - release: the allocation is committed to this job, or is still a reservation this job
//   or its user made.
// A stranger's reservation or another job's allocation is PERMISSION_DENIED, named.
//
//   std::string key = SubmitRequestId(getuid(), nonce);  // at submission
//   TP_RETURN_IF_ERROR(CheckJobMayBind(owner, job_id, uid, BindAction::kCommit));
#ifndef TOPOPLACE_PLUGINS_SLURM_SPANK_JOB_BINDING_H_
#define TOPOPLACE_PLUGINS_SLURM_SPANK_JOB_BINDING_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace topoplace::slurm {

// What the check reads of an allocation (GetAllocation's answer).
struct AllocationOwner {
  std::string allocation_id;
  bool reserved = false;    // state RESERVED (not committed, released or expired)
  std::string external_id;  // "slurm:<job id>" once committed
  std::string request_id;   // the Reserve idempotency key
};

enum class BindAction { kCommit, kRelease };

// The idempotency key of a reservation made at submission by user `uid`:
// "slurm-submit:<uid>:<nonce as 16 hex digits>".
std::string SubmitRequestId(uint32_t uid, uint64_t nonce);

// OK if job `job_id` of user `uid` may commit or release `a` (see the file comment);
// PermissionDenied naming the allocation, whom it belongs to and the job otherwise.
absl::Status CheckJobMayBind(const AllocationOwner& a, uint32_t job_id, uint32_t uid,
                             BindAction action);

}  // namespace topoplace::slurm

#endif  // TOPOPLACE_PLUGINS_SLURM_SPANK_JOB_BINDING_H_
