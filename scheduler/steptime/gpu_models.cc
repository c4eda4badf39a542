#include "scheduler/steptime/gpu_models.h"

#include <array>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace topoplace::sched {
namespace {

// NCCL ring all-reduce on 8 H100 SXM over NVLink reaches ~370 GB/s bus bandwidth of the
// 450 GB/s line rate, ~20% protocol overhead (NVIDIA/nccl-tests issue #212, comment of
// 2024-05-06 by an NCCL maintainer; ~370 GB/s again in NVIDIA/nccl issue #1442).
constexpr double kHopperNvlinkEfficiency = 370.0 / 450.0;

// Llama 3 405B on 16,384 H100: 400 TFLOP/s per GPU, 41% BF16 MFU (Dubey et al., "The Llama
// 3 Herd of Models", arXiv 2407.21783, section 3.3.2, Table 4).
constexpr double kHopperAchievedFlops = 400e12;
constexpr double kHopperMfu = kHopperAchievedFlops / 989e12;

constexpr std::array<GpuModel, 3> kModels = {{
    {
        .name = "H100",
        // NVIDIA H100 Tensor Core GPU datasheet (SXM): NVLink 900 GB/s, BF16 1,979 TFLOP/s
        // with sparsity. NVIDIA's health checks expect 18 links of 26.56 GB/s each per
        // direction (docs.nvidia.com/health-validation, nvlink_bandwidth_count_speed).
        .nvlink_gbps = 450 * 8,
        .bf16_peak_flops = 989e12,
        .achieved_flops = kHopperAchievedFlops,
        .nvlink_efficiency = kHopperNvlinkEfficiency,
        .nvlink_source = "8x H100 ring all-reduce ~370 of 450 GB/s (NVIDIA/nccl-tests#212)",
        .flops_source = "Llama 3 405B on 16,384 H100: 400 TFLOP/s per GPU (arXiv 2407.21783)",
    },
    {
        .name = "GB200",
        // NVIDIA GB200 NVL72 page: 1.8 TB/s NVLink per GPU; 360 PFLOP/s BF16 with sparsity
        // per 72-GPU rack, 2.5 PFLOP/s dense per GPU. Health checks: 18 links of 53.1 GB/s
        // per direction.
        .nvlink_gbps = 900 * 8,
        .bf16_peak_flops = 2.5e15,
        // No MFU of GB200 training at scale was found published: Hopper's (Llama 3's 41%)
        // applied to GB200's peak.
        .achieved_flops = kHopperMfu * 2.5e15,
        // Hopper's ring efficiency; the published 72-GPU rack figure (~835-847 GB/s of 900,
        // coreweave/nccl-tests) is the calibration test's, not a constant here.
        .nvlink_efficiency = kHopperNvlinkEfficiency,
        .nvlink_source = "H100's ring efficiency (nccl-tests#212); checked against a 72-GPU "
                         "rack's 835 GB/s (coreweave/nccl-tests README)",
        .flops_source = "2.5 PFLOP/s dense BF16 x Llama 3's 41% MFU on H100 (no GB200 MFU "
                        "published)",
    },
    {
        .name = "GH200",
        // Grace Hopper: the H100 GPU (989 TFLOP/s dense BF16) with NVLink 4, 900 GB/s both
        // ways, to the NVLink switch system of a GH200 NVL32 or NVL256 (NVIDIA GH200
        // product page).
        .nvlink_gbps = 450 * 8,
        .bf16_peak_flops = 989e12,
        .achieved_flops = kHopperAchievedFlops,
        .nvlink_efficiency = kHopperNvlinkEfficiency,
        .nvlink_source = "H100's (same NVLink 4): ~370 of 450 GB/s (nccl-tests#212)",
        .flops_source = "H100's: Llama 3 405B, 400 TFLOP/s per GPU (arXiv 2407.21783)",
    },
}};

}  // namespace

std::span<const GpuModel> GpuModels() { return kModels; }

const GpuModel* FindGpuModel(absl::string_view product) {
  const std::string lower = absl::AsciiStrToLower(product);
  const GpuModel* best = nullptr;
  for (const GpuModel& model : kModels) {
    if (!absl::StrContains(lower, absl::AsciiStrToLower(model.name))) continue;
    if (best == nullptr || model.name.size() > best->name.size()) best = &model;
  }
  return best;
}

const GpuModel& DefaultGpuModel() { return kModels[0]; }

const GpuModel& FabricGpuModel(const Fabric& fabric) {
  std::array<int64_t, kModels.size()> hosts{};
  absl::flat_hash_map<std::string, const GpuModel*> seen;
  for (const Host& host : fabric.hosts()) {
    if (host.gpu_model.empty()) continue;
    auto [it, inserted] = seen.try_emplace(host.gpu_model, nullptr);
    if (inserted) it->second = FindGpuModel(host.gpu_model);
    if (it->second != nullptr) ++hosts[static_cast<size_t>(it->second - kModels.data())];
  }
  size_t most = 0;
  for (size_t i = 1; i < hosts.size(); ++i) {
    if (hosts[i] > hosts[most]) most = i;
  }
  return hosts[most] > 0 ? kModels[most] : DefaultGpuModel();
}

}  // namespace topoplace::sched
