// Why a job waits: how close the free capacity came to it, for the people who read a
// refused Place or Reserve (the CLI's error, the pod's scheduling message, the Slurm job's
// log). The inventory counts the hosts that can take one node of the job (healthy, not
// excluded, gpus_per_node GPUs free); this names, at each level the fabric has, the
// freest domain in those hosts, and at the level the job is bound to how many hosts it is
// short there; then what kept the other hosts out.
//
//   absl::Status refused = ...;  // ResourceExhausted from a policy or the engine
//   return WithWaitReason(refused, inv, job, &health);
//   // "...; room for 16 nodes of 8 GPUs: largest free NVLink domain: 68 GPUs (17 hosts,
//   //  rack-3), largest free block: 96 GPUs (12 hosts, block 2; 4 short in one block),
//   //  cluster: 480 GPUs (60 hosts); hosts left out: 20 busy, 3 unhealthy, 0 excluded"
#ifndef TOPOPLACE_SCHEDULER_FRAMEWORK_WAIT_REASON_H_
#define TOPOPLACE_SCHEDULER_FRAMEWORK_WAIT_REASON_H_

#include <string>

#include "absl/status/status.h"
#include "scheduler/framework/inventory.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/state/health.h"

namespace topoplace::sched {

// The room sentence above (without the leading "; "). `health`, if given, adds the
// blocks whose uplinks are down or degraded.
std::string DescribeRoom(const Inventory& inv, const JobSpec& job,
                         const HealthView* health = nullptr);

// `refusal` with the room sentence appended to its message when it is ResourceExhausted
// (the job does not fit now); any other status is returned as it is.
absl::Status WithWaitReason(const absl::Status& refusal, const Inventory& inv, const JobSpec& job,
                            const HealthView* health = nullptr);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_FRAMEWORK_WAIT_REASON_H_
