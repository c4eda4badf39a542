// The step time a trace's durations are measured at. A trace says how long a job ran;
// the simulator scales that by the placement's step time over this reference. The
// reference is the job on the most compact hosts an empty fabric offers (its nodes taken
// in block, NVLink domain and host order, so that they fill whole domains), with every
// network byte at leaf speed. It does not depend on the policy or on where the job runs:
// a placement that sends more bytes off NVLink, or over slower links, runs longer. (It was
// the placement's own bytes at leaf speed, which made bytes that leave an NVLink domain
// free wherever the leaf was not oversubscribed.)
//
//   ReferenceSteps reference(engine.tiers(), comm, /*rail_local=*/true);
//   double slowdown = comm.StepSeconds(plan.job, plan.traffic) /
//                     reference.StepSeconds(plan.job, plan.traffic);
//
// Not thread-safe (a cache per distinct job spec).
#ifndef TOPOPLACE_SCHEDULER_STEPTIME_REFERENCE_STEP_H_
#define TOPOPLACE_SCHEDULER_STEPTIME_REFERENCE_STEP_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/steptime/comm_model.h"
#include "scheduler/traffic/tier_index.h"
#include "scheduler/traffic/traffic_report.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

class ReferenceSteps {
 public:
  // On `index`'s fabric; `index` and `comm` must outlive this.
  ReferenceSteps(const TierIndex& index, const CommModel& comm, bool rail_local);

  // Seconds per iteration of `job` on its compact hosts, network bytes at leaf speed.
  // Where the fabric has no such hosts (too few with job.gpus_per_node GPUs), the
  // placement's own bytes (`placed`) at leaf speed. Preconditions: ValidateJobSpec(job).
  double StepSeconds(const JobSpec& job, const TrafficReport& placed);

  // The compact hosts' traffic, or nullopt where the fabric has too few such hosts.
  std::optional<TrafficReport> CompactTraffic(const JobSpec& job) const;

 private:
  const Fabric& fabric_;
  const CommModel& comm_;
  const bool rail_local_;
  const TierIndex& index_;
  std::vector<HostId> order_;  // every host, block, NVLink domain and id order
  absl::flat_hash_map<std::string, double> by_spec_;  // FormatJobSpec -> seconds
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_STEPTIME_REFERENCE_STEP_H_
