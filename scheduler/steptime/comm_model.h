// How placement changes a job's run time. One training iteration takes
//
//   t_step = t_compute + sum over dims d != dp of t_comm(d)
//            + max(0, t_comm(dp) - dp_overlap * backward_share * t_compute / m)
//
// where t_compute = 6 * P * (s * b * m) * dp / world_size / gpu_flops (the 6PT rule, P the
// parameters a token activates (ActiveParams: all of them for dense models):
// forward + backward FLOPs per token, spread over the GPUs of one data-parallel replica),
// and a dimension's communication time t_comm(d) is the longer of its NVLink part and its
// network part, which move at the same time (NCCL runs a collective's channels over NVLink
// and the NICs at once; DeepEP forwards over NVLink while RDMA is in flight). Each part is
// its per-rank bytes at each of its tiers (TrafficReport::dim_tier_bytes / world size) over
// the bandwidth a rank gets there, summed over the network's tiers:
//
//   nvlink: nvlink_gbps;  leaf: the NIC speed;  spine: NIC speed / leaf oversubscription;
//   core: NIC speed / (leaf oversubscription * spine oversubscription)
//
// each times the share of line rate NCCL reaches (nvlink_efficiency, nic_efficiency) and
// divided by comm_scale; i.e. alone, each rank gets its fair share of a fully loaded
// oversubscribed tier. The GPU's constants are its model's (gpu_models.h). With
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
#ifndef TOPOPLACE_SCHEDULER_STEPTIME_COMM_MODEL_H_
#define TOPOPLACE_SCHEDULER_STEPTIME_COMM_MODEL_H_

#include <array>
#include <string>

#include "scheduler/job/job_spec.h"
#include "scheduler/traffic/traffic_report.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

// The model's constants. The GPU's come from its model's table entry (gpu_models.h, each
// with its source); NIC speed and oversubscription are read from the fabric. A value
// > 0 here overrides the table's (tests, experiments).
struct CommModelOptions {
  // The GPU model whose constants apply ("H100", "GB200", ...); empty: the fabric's
  // (FabricGpuModel). An unknown name gets the default model's (H100).
  std::string gpu_model;
  // Sustained FLOP/s per GPU (the model's achieved_flops).
  double gpu_flops = 0;
  // Per GPU, one direction, in Gb/s (the model's nvlink_gbps).
  double nvlink_gbps = 0;
  // Share of the NVLink and NIC line rates a rank's traffic gets (the model's
  // nvlink_efficiency; kNicEfficiency).
  double nvlink_efficiency = 0, nic_efficiency = 0;
  // Share of the last micro-batch's backward pass that DP gradient all-reduce can hide
  // behind: gradients are all-reduced in buckets as soon as they are ready (PyTorch DDP,
  // Li et al., VLDB 2020; Megatron-LM's overlapped gradient reduction). 1: up to all of
  // it; 0: no overlap at all.
  double dp_overlap = 1.0;
  // Multiplies every communication time (NVLink and network): 1 is the calibrated model;
  // 2 asks how much a result leans on it (the report shows both).
  double comm_scale = 1.0;
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
  // speed; oversubscription 1 where the fabric has no tier above) and, unless `options`
  // names one, its GPU model.
  static CommModel ForFabric(const Fabric& fabric, const CommModelOptions& options);

  // Seconds of compute per iteration (see above). Preconditions: ValidateJobSpec(job) ok.
  double ComputeSeconds(const JobSpec& job) const;
  // Each dimension's NVLink seconds per iteration (no fabric link shares them).
  DimSeconds NvlinkSeconds(const JobSpec& job, const TrafficReport& traffic) const;
  // Each dimension's communication seconds per iteration, its tiers at their bandwidths
  // alone: Concurrent(NVLink seconds, network seconds).
  DimSeconds CommSeconds(const JobSpec& job, const TrafficReport& traffic) const;
  // Per dimension, the longer of its NVLink and network seconds: the two move at once.
  static DimSeconds Concurrent(const DimSeconds& nvlink_s, const DimSeconds& network_s);
  // Each dimension's network bytes per iteration (leaf tier and above).
  static DimSeconds NetworkBytes(const TrafficReport& traffic);
  // Seconds per iteration of `job` given its compute and each dimension's communication
  // seconds: compute plus communication, less the DP part hidden behind the last
  // micro-batch's backward pass.
  double CombineSeconds(const JobSpec& job, double compute_s, const DimSeconds& comm_s) const;
  // Per dimension, its part of the plan's network bytes (NetworkBytes over their sum; all 0
  // without network bytes).
  static DimSeconds NetworkShares(const TrafficReport& traffic);
  // The shared-link model's seconds per iteration: compute, and per dimension its NVLink
  // seconds `nvlink_s` alongside its part (`shares`) of the network time, which is
  // `busiest_cable_s` (the job's bottleneck cable at line rate, BusiestCableSeconds) over
  // `share` (its max-min fraction there, in (0, 1]) times network_time_factor().
  double SharedStepSeconds(const JobSpec& job, double compute_s, const DimSeconds& nvlink_s,
                           const DimSeconds& shares, double busiest_cable_s, double share) const;
  // SharedStepSeconds alone (share 1) with the plan's own compute, NVLink seconds and
  // network shares: its step as the shared-link model times it with no other job on its
  // links, `busiest_cable_s` its bottleneck (BusiestCableSeconds).
  double LinkStepSeconds(const JobSpec& job, const TrafficReport& traffic,
                         double busiest_cable_s) const;
  // Seconds per iteration with the plan's traffic, each tier at its bandwidth alone.
  double StepSeconds(const JobSpec& job, const TrafficReport& traffic) const;
  // Seconds per iteration if every network byte moved at leaf speed.
  double ReferenceStepSeconds(const JobSpec& job, const TrafficReport& traffic) const;
  // StepSeconds / ReferenceStepSeconds; 1 for a job with no work at all.
  double Slowdown(const JobSpec& job, const TrafficReport& traffic) const;

  // Bytes per second a rank gets at each tier (index = Tier).
  const std::array<double, kNumTiers>& tier_bytes_per_s() const { return bytes_per_s_; }
  // The constants in use: every field filled in (gpu_model the table's name).
  const CommModelOptions& options() const { return options_; }
  // Seconds per second at a cable's line rate that the network part of communication
  // takes (comm_scale / nic_efficiency): the shared-link model's bottleneck times, which
  // are at line rate, times this.
  double network_time_factor() const { return options_.comm_scale / options_.nic_efficiency; }

 private:
  CommModel() = default;
  // Per dimension: bytes per rank at each tier from `first_tier` up, over `bytes_per_s`.
  DimSeconds TierSeconds(const JobSpec& job, const TrafficReport& traffic, int first_tier,
                         int last_tier, const std::array<double, kNumTiers>& bytes_per_s) const;

  CommModelOptions options_;
  std::array<double, kNumTiers> bytes_per_s_{};
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_STEPTIME_COMM_MODEL_H_
