#include "scheduler/steptime/comm_model.h"

#include <algorithm>

#include "scheduler/steptime/gpu_models.h"

namespace topoplace::sched {
namespace {

constexpr int kNv = static_cast<int>(Tier::kNvlink);
constexpr int kLeaf = static_cast<int>(Tier::kLeaf);
constexpr int kSpine = static_cast<int>(Tier::kSpine);
constexpr int kCore = static_cast<int>(Tier::kCore);

double Oversubscription(const Fabric& fabric, int tier) {
  const auto& stats = fabric.tier_stats();
  if (tier < 1 || tier > static_cast<int>(stats.size())) return 1.0;
  const std::optional<double> os = stats[tier - 1].oversubscription();
  return os && *os > 1.0 ? *os : 1.0;
}

double NicGbps(const Fabric& fabric) {
  for (const Nic& nic : fabric.nics()) {
    if (nic.leaf >= 0 && nic.speed_gbps > 0) return nic.speed_gbps;
  }
  return 0;
}

}  // namespace

CommModel CommModel::ForFabric(const Fabric& fabric, const CommModelOptions& options) {
  CommModel m;
  CommModelOptions& o = m.options_;
  o = options;
  const GpuModel* named = o.gpu_model.empty() ? nullptr : FindGpuModel(o.gpu_model);
  const GpuModel& gpu = o.gpu_model.empty() ? FabricGpuModel(fabric)
                        : named != nullptr  ? *named
                                            : DefaultGpuModel();
  o.gpu_model = std::string(gpu.name);
  if (!(o.gpu_flops > 0)) o.gpu_flops = gpu.achieved_flops;
  if (!(o.nvlink_gbps > 0)) o.nvlink_gbps = gpu.nvlink_gbps;
  if (!(o.nvlink_efficiency > 0)) o.nvlink_efficiency = gpu.nvlink_efficiency;
  if (!(o.nic_efficiency > 0)) o.nic_efficiency = kNicEfficiency;
  if (!(o.comm_scale > 0)) o.comm_scale = 1;
  const double nic = NicGbps(fabric) * 1e9 / 8 * o.nic_efficiency / o.comm_scale;
  const double os1 = Oversubscription(fabric, 1);
  const double os2 = Oversubscription(fabric, 2);
  m.bytes_per_s_[kNv] = o.nvlink_gbps * 1e9 / 8 * o.nvlink_efficiency / o.comm_scale;
  m.bytes_per_s_[kLeaf] = nic;
  m.bytes_per_s_[kSpine] = nic / os1;
  m.bytes_per_s_[kCore] = nic / (os1 * os2);
  return m;
}

double CommModel::ComputeSeconds(const JobSpec& job) const {
  const ModelShape& m = job.model;
  const double tokens_per_replica = static_cast<double>(m.seq) *
                                    static_cast<double>(m.micro_batch) *
                                    static_cast<double>(m.micro_batches);
  const double flops_per_gpu =
      6.0 * ActiveParams(m) * tokens_per_replica * job.dp / static_cast<double>(job.world_size());
  return options_.gpu_flops > 0 ? flops_per_gpu / options_.gpu_flops : 0;
}

DimSeconds CommModel::TierSeconds(const JobSpec& job, const TrafficReport& traffic, int first_tier,
                                  int last_tier,
                                  const std::array<double, kNumTiers>& bytes_per_s) const {
  const double world = static_cast<double>(job.world_size());
  DimSeconds seconds{};
  for (int d = 0; d < kNumDims; ++d) {
    for (int tier = first_tier; tier <= last_tier; ++tier) {
      if (bytes_per_s[tier] > 0) {
        seconds[d] += traffic.dim_tier_bytes[d][tier] / world / bytes_per_s[tier];
      }
    }
  }
  return seconds;
}

DimSeconds CommModel::NvlinkSeconds(const JobSpec& job, const TrafficReport& traffic) const {
  return TierSeconds(job, traffic, kNv, kNv, bytes_per_s_);
}

DimSeconds CommModel::CommSeconds(const JobSpec& job, const TrafficReport& traffic) const {
  return Concurrent(NvlinkSeconds(job, traffic),
                    TierSeconds(job, traffic, kLeaf, kNumTiers - 1, bytes_per_s_));
}

DimSeconds CommModel::Concurrent(const DimSeconds& nvlink_s, const DimSeconds& network_s) {
  DimSeconds seconds;
  for (int d = 0; d < kNumDims; ++d) seconds[d] = std::max(nvlink_s[d], network_s[d]);
  return seconds;
}

DimSeconds CommModel::NetworkBytes(const TrafficReport& traffic) {
  DimSeconds bytes{};
  for (int d = 0; d < kNumDims; ++d) {
    for (int tier = kLeaf; tier < kNumTiers; ++tier) bytes[d] += traffic.dim_tier_bytes[d][tier];
  }
  return bytes;
}

DimSeconds CommModel::NetworkShares(const TrafficReport& traffic) {
  DimSeconds shares = NetworkBytes(traffic);
  const double network = traffic.network_bytes();
  for (double& share : shares) share = network > 0 ? share / network : 0;
  return shares;
}

double CommModel::SharedStepSeconds(const JobSpec& job, double compute_s,
                                    const DimSeconds& nvlink_s, const DimSeconds& shares,
                                    double busiest_cable_s, double share) const {
  const double network_s = busiest_cable_s / share * network_time_factor();
  DimSeconds network{};
  for (int d = 0; d < kNumDims; ++d) network[d] = network_s * shares[d];
  return CombineSeconds(job, compute_s, Concurrent(nvlink_s, network));
}

double CommModel::LinkStepSeconds(const JobSpec& job, const TrafficReport& traffic,
                                  double busiest_cable_s) const {
  return SharedStepSeconds(job, ComputeSeconds(job), NvlinkSeconds(job, traffic),
                           NetworkShares(traffic), busiest_cable_s, /*share=*/1.0);
}

double CommModel::CombineSeconds(const JobSpec& job, double compute_s,
                                 const DimSeconds& comm_s) const {
  constexpr int kDp = static_cast<int>(Dim::kDp);
  const double micro_batches = std::max(1.0, static_cast<double>(job.model.micro_batches));
  const double hidden = options_.dp_overlap * kBackwardShareOfCompute * compute_s / micro_batches;
  double t = compute_s;
  for (int d = 0; d < kNumDims; ++d) {
    t += d == kDp ? std::max(0.0, comm_s[d] - hidden) : comm_s[d];
  }
  return t;
}

double CommModel::StepSeconds(const JobSpec& job, const TrafficReport& traffic) const {
  return CombineSeconds(job, ComputeSeconds(job), CommSeconds(job, traffic));
}

double CommModel::ReferenceStepSeconds(const JobSpec& job, const TrafficReport& traffic) const {
  std::array<double, kNumTiers> at_leaf;
  at_leaf.fill(bytes_per_s_[kLeaf]);
  const DimSeconds comm = Concurrent(NvlinkSeconds(job, traffic),
                                     TierSeconds(job, traffic, kLeaf, kNumTiers - 1, at_leaf));
  return CombineSeconds(job, ComputeSeconds(job), comm);
}

double CommModel::Slowdown(const JobSpec& job, const TrafficReport& traffic) const {
  const double ref = ReferenceStepSeconds(job, traffic);
  if (!(ref > 0)) return 1.0;
  const double slowdown = StepSeconds(job, traffic) / ref;
  return slowdown > 1.0 ? slowdown : 1.0;
}

}  // namespace topoplace::sched
