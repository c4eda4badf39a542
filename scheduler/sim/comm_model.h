// How placement changes a job's run time. One training iteration takes
//
//   t_step = t_compute + sum over tiers T of  bytes_per_rank(T) / bandwidth(T)
//
// where t_compute = 6 * P * (s * b * m) * dp / world_size / gpu_flops (the 6PT rule of
// thumb: forward + backward FLOPs per token, spread over the GPUs of one data-parallel
// replica), bytes_per_rank(T) is the plan's per-iteration bytes at tier T divided by the
// world size (TrafficReport::tier_bytes), and the bandwidth a rank gets is
//
//   nvlink: nvlink_gbps;  leaf: the NIC speed;  spine: NIC speed / leaf oversubscription;
//   core: NIC speed / (leaf oversubscription * spine oversubscription)
//
// i.e. each rank gets its fair share of a fully loaded oversubscribed tier (a busy
// cluster), communication does not overlap compute, and jobs do not otherwise interfere.
// A trace's duration is the run time on the reference placement whose network bytes all
// move at leaf speed; a placed job runs duration * slowdown, slowdown = t_step / t_ref >= 1.
//
//   CommModel model = CommModel::ForFabric(*fabric, {});
//   double s = model.Slowdown(job, plan.traffic);
//
// Immutable; thread-safe.
#ifndef TOPOPLACE_SCHEDULER_SIM_COMM_MODEL_H_
#define TOPOPLACE_SCHEDULER_SIM_COMM_MODEL_H_

#include <array>

#include "scheduler/job/job_spec.h"
#include "scheduler/traffic/traffic_report.h"
#include "topology/model/fabric.h"

namespace topoplace::sched::sim {

struct CommModelOptions {
  double gpu_flops = 400e12;  // sustained per GPU (H100 bf16 at ~40% MFU)
  double nvlink_gbps = 3600;  // per GPU, one direction (H100: 450 GB/s)
};

class CommModel {
 public:
  // Reads NIC speed and per-tier oversubscription from `fabric` (the first cabled NIC's
  // speed; oversubscription 1 where the fabric has no tier above).
  static CommModel ForFabric(const Fabric& fabric, const CommModelOptions& options);

  // Seconds of compute per iteration (see above). Preconditions: ValidateJobSpec(job) ok.
  double ComputeSeconds(const JobSpec& job) const;
  // Seconds per iteration that no fabric link shares: compute and NVLink traffic.
  double UnsharedSeconds(const JobSpec& job, const TrafficReport& traffic) const;
  // Seconds per iteration with the plan's traffic.
  double StepSeconds(const JobSpec& job, const TrafficReport& traffic) const;
  // Seconds per iteration if every network byte moved at leaf speed.
  double ReferenceStepSeconds(const JobSpec& job, const TrafficReport& traffic) const;
  // StepSeconds / ReferenceStepSeconds; 1 for a job with no work at all.
  double Slowdown(const JobSpec& job, const TrafficReport& traffic) const;

  // Bytes per second a rank gets at each tier (index = Tier).
  const std::array<double, kNumTiers>& tier_bytes_per_s() const { return bytes_per_s_; }

 private:
  CommModel() = default;
  CommModelOptions options_;
  std::array<double, kNumTiers> bytes_per_s_{};
};

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_COMM_MODEL_H_
