// How placement changes a job's run time. One training iteration takes
//
//   t_step = t_compute + sum over dims d != dp of t_comm(d)
//            + max(0, t_comm(dp) - dp_overlap * backward_share * t_compute / m)
//
// where t_compute = 6 * P * (s * b * m) * dp / world_size / gpu_flops (the 6PT rule, P the
// parameters a token activates (ActiveParams: all of them for dense models):
// forward + backward FLOPs per token, spread over the GPUs of one data-parallel replica),
// and a dimension's communication time t_comm(d) is its per-rank bytes at each tier
// (TrafficReport::dim_tier_bytes / world size) over the bandwidth a rank gets there:
//
//   nvlink: nvlink_gbps;  leaf: the NIC speed;  spine: NIC speed / leaf oversubscription;
//   core: NIC speed / (leaf oversubscription * spine oversubscription)
//
// i.e. alone, each rank gets its fair share of a fully loaded oversubscribed tier. With
// shared links (link_sharing.h) the network part of every dimension is instead the job's
// bottleneck-link time divided by its current share, split over the dimensions by their
// network bytes. DP gradient all-reduce overlaps the backward pass of the last of the
// step's m micro-batches: gradients accumulate over all m, so a bucket can be reduced only
// once the last micro-batch's backward has produced it (Megatron-LM's overlapped gradient
// reduction; the pipeline flush of Narayanan et al., SC 2021, section 2.2). TP, CP, EP and
// PP communication sits on the critical path and does not overlap.
// A trace's duration is the run time on the reference placement whose network bytes all
// move at leaf speed; a placed job runs duration * slowdown, slowdown = t_step / t_ref >= 1.
//
//   CommModel model = CommModel::ForFabric(*fabric, {});
//   double s = model.Slowdown(job, plan.traffic);
//
// Immutable; thread-safe.
#ifndef TOPOPLACE_SCHEDULER_LOAD_COMM_MODEL_H_
#define TOPOPLACE_SCHEDULER_LOAD_COMM_MODEL_H_

#include <array>

#include "scheduler/job/job_spec.h"
#include "scheduler/traffic/traffic_report.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

// The model's constants, each with its source. NIC speed and oversubscription are not
// here: they are read from the fabric.
struct CommModelOptions {
  // Sustained FLOP/s per GPU: H100 SXM dense BF16 peak, 989 TFLOP/s (NVIDIA H100 Tensor
  // Core GPU datasheet), at 40% model FLOPs utilisation, the low end of what Megatron-LM
  // reports at scale (Narayanan et al., SC 2021; Korthikanti et al., MLSys 2023).
  double gpu_flops = 400e12;
  // Per GPU, one direction: NVLink 4 gives an H100 900 GB/s both ways, 450 GB/s each way
  // (same datasheet).
  double nvlink_gbps = 3600;
  // Share of the last micro-batch's backward pass that DP gradient all-reduce can hide
  // behind: gradients are all-reduced in buckets as soon as they are ready (PyTorch DDP,
  // Li et al., VLDB 2020; Megatron-LM's overlapped gradient reduction). 1: up to all of
  // it; 0: no overlap at all.
  double dp_overlap = 1.0;
};

// Backward FLOPs are twice the forward ones (Kaplan et al., "Scaling Laws for Neural
// Language Models", 2020, section 2.1: C_forward = 2N, total 6N per token), so the
// backward pass is 2/3 of the compute.
inline constexpr double kBackwardShareOfCompute = 2.0 / 3.0;

// A job's communication seconds per iteration, per parallel dimension.
using DimSeconds = std::array<double, kNumDims>;

class CommModel {
 public:
  // Reads NIC speed and per-tier oversubscription from `fabric` (the first cabled NIC's
  // speed; oversubscription 1 where the fabric has no tier above).
  static CommModel ForFabric(const Fabric& fabric, const CommModelOptions& options);

  // Seconds of compute per iteration (see above). Preconditions: ValidateJobSpec(job) ok.
  double ComputeSeconds(const JobSpec& job) const;
  // Each dimension's NVLink seconds per iteration (no fabric link shares them).
  DimSeconds NvlinkSeconds(const JobSpec& job, const TrafficReport& traffic) const;
  // Each dimension's network bytes per iteration (leaf tier and above).
  static DimSeconds NetworkBytes(const TrafficReport& traffic);
  // Seconds per iteration of `job` given its compute and each dimension's communication
  // seconds: compute plus communication, less the DP part hidden behind the last
  // micro-batch's backward pass.
  double CombineSeconds(const JobSpec& job, double compute_s, const DimSeconds& comm_s) const;
  // Seconds per iteration with the plan's traffic, each tier at its bandwidth alone.
  double StepSeconds(const JobSpec& job, const TrafficReport& traffic) const;
  // Seconds per iteration if every network byte moved at leaf speed.
  double ReferenceStepSeconds(const JobSpec& job, const TrafficReport& traffic) const;
  // StepSeconds / ReferenceStepSeconds; 1 for a job with no work at all.
  double Slowdown(const JobSpec& job, const TrafficReport& traffic) const;

  // Bytes per second a rank gets at each tier (index = Tier).
  const std::array<double, kNumTiers>& tier_bytes_per_s() const { return bytes_per_s_; }
  const CommModelOptions& options() const { return options_; }

 private:
  CommModel() = default;
  // Per dimension: bytes per rank at each tier from `first_tier` up, over `bytes_per_s`.
  DimSeconds TierSeconds(const JobSpec& job, const TrafficReport& traffic, int first_tier,
                         int last_tier, const std::array<double, kNumTiers>& bytes_per_s) const;

  CommModelOptions options_;
  std::array<double, kNumTiers> bytes_per_s_{};
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_LOAD_COMM_MODEL_H_
