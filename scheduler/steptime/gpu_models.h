// Each GPU model's constants for the step-time model (comm_model.h), every one with its
// source. A fabric names its hosts' GPU model (Host::gpu_model: fabric files, presets,
// `nvidia-smi -q`'s Product Name); the model's table entry gives NVLink bandwidth and
// achieved FLOP/s. NIC speed and oversubscription come from the fabric itself.
//
//   const GpuModel& gpu = FabricGpuModel(*fabric);   // H100 where the fabric says nothing
//   CommModelOptions options = OptionsFor(gpu);
//
// Pure functions over constant data; thread-safe.
#ifndef TOPOPLACE_SCHEDULER_STEPTIME_GPU_MODELS_H_
#define TOPOPLACE_SCHEDULER_STEPTIME_GPU_MODELS_H_

#include <span>

#include "absl/strings/string_view.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

struct GpuModel {
  absl::string_view name;  // "H100", "GB200", "GH200"
  // Per GPU, one direction, in Gb/s (datasheet: total NVLink bandwidth / 2).
  double nvlink_gbps = 0;
  // Dense BF16 Tensor Core peak, FLOP/s (datasheets quote it with 2:4 sparsity; half).
  double bf16_peak_flops = 0;
  // Sustained FLOP/s per GPU of large-scale training: measured where published, else the
  // peak times a measured model FLOPs utilisation of a related model (`flops_source`).
  double achieved_flops = 0;
  // Share of NVLink's line rate that NCCL's ring all-reduce reaches (bus bandwidth over
  // line rate; protocol overhead), measured on this model or, where not published, on the
  // model named in `nvlink_source`.
  double nvlink_efficiency = 0;
  absl::string_view nvlink_source, flops_source;
};

// Share of a 400G NIC's line rate NCCL reaches between nodes: ~48 GB/s of 50 per CX7 NIC
// (NVIDIA/nccl-tests issue #319, comment of 2025-06-11 by an NCCL maintainer: "~48 GB/s
// per NIC", 2 nodes, NCCL_ALGO=RING); applied to every NIC speed.
inline constexpr double kNicEfficiency = 48.0 / 50.0;

// Every model in the table, H100 first.
std::span<const GpuModel> GpuModels();
// The entry whose name `product` names: "H100", "NVIDIA H100 80GB HBM3", "gb200" and
// "NVIDIA GB200" all find theirs (case aside, the longest table name inside `product`).
// nullptr for an unknown model.
const GpuModel* FindGpuModel(absl::string_view product);
// H100: the model of the fabrics that name none (the presets' default).
const GpuModel& DefaultGpuModel();
// The model most of the fabric's hosts name (ties: the first in the table); the default
// where none names a known one.
const GpuModel& FabricGpuModel(const Fabric& fabric);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_STEPTIME_GPU_MODELS_H_
