#include "topology/generate/reference_fabrics.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "topology/model/fabric_builder.h"

namespace topoplace {
namespace {

struct Preset {
  absl::string_view name;
  ClosParams params;
};

// The reference designs (docs/guides/fabrics.md, "Reference fabrics"). Cable counts follow from
// bandwidth: e.g. a rail-28k leaf has 112 x 400G down = 44.8T; at 7:1 that is 6.4T up = 8 x
// 800G, 2 to each of the 4 spines of its rail plane; each 64-port spine then takes 2 cables from
// 32 groups. Over 80 lines because it is a table: one block of parameters per preset.
std::vector<Preset> Presets() {
  std::vector<Preset> presets;
  {
    ClosParams p;
    p.name = "rail-512";
    p.nodes_per_block = 64;
    p.spines_per_pod = 2;
    p.leaf_uplink_gbps = 800;
    presets.push_back({"rail-512", p});
  }
  {
    ClosParams p;
    p.name = "superpod-4su";
    p.blocks_per_pod = 4;
    p.nodes_per_block = 32;
    p.spines_per_pod = 16;
    presets.push_back({"superpod-4su", p});
  }
  {
    ClosParams p;
    p.name = "rail-28k";
    p.blocks_per_pod = 32;
    p.nodes_per_block = 112;
    p.spines_per_pod = 32;
    p.rail_planes = true;
    p.leaf_uplink_gbps = 800;
    p.leaf_oversubscription = 7.0;
    presets.push_back({"rail-28k", p});
  }
  {
    ClosParams p;
    p.name = "clos3-100k";
    p.tiers = 3;
    p.pods = 16;
    p.blocks_per_pod = 25;
    p.nodes_per_block = 32;
    p.spines_per_pod = 16;
    p.leaf_uplink_gbps = 800;
    p.cores = 100;
    p.spine_uplink_gbps = 800;
    presets.push_back({"clos3-100k", p});
  }
  {
    // NVIDIA DGX GB200 SuperPOD: racks of 18 compute trays x 4 Blackwell GPUs on one NVLink
    // switch fabric (72 GPUs, 1.8 TB/s each), 4 ConnectX-7 400G NICs per tray for the
    // rail-optimised compute fabric, 8 racks a scalable unit (docs.nvidia.com, "DGX
    // SuperPOD reference architecture with DGX GB200", abstract and network-fabrics; DGX
    // GB200 user guide, hardware). 16 racks = 2 SUs, 1,152 GPUs. Ours, not NVIDIA's: one
    // rail leaf per rail for every two racks (36 x 400G down, non-blocking up to 8 spines);
    // the RA's own cabling figure was not transcribed.
    ClosParams p;
    p.name = "gb200-nvl72";
    p.blocks_per_pod = 8;
    p.nodes_per_block = 36;
    p.gpus_per_node = 4;
    p.rails = 4;
    p.spines_per_pod = 8;
    p.leaf_uplink_gbps = 800;
    p.nodes_per_nvlink_domain = 18;
    p.gpu_model = "GB200";
    presets.push_back({"gb200-nvl72", p});
  }
  {
    // The seed design's "fully connected NVLink across 256 GPUs": a DGX GH200-like domain of
    // 256 one-GPU superchips on one NVLink switch system (NVIDIA DGX GH200 announcement,
    // "up to 256 GPUs"), each with one ConnectX-7 400G NIC. Four domains, 1,024 GPUs; ours:
    // each domain under one leaf group (one rail), non-blocking to 8 spines.
    ClosParams p;
    p.name = "gh200-nvl256";
    p.blocks_per_pod = 4;
    p.nodes_per_block = 256;
    p.gpus_per_node = 1;
    p.rails = 1;
    p.spines_per_pod = 8;
    p.leaf_uplink_gbps = 800;
    p.nodes_per_nvlink_domain = 256;
    p.gpu_model = "GH200";
    presets.push_back({"gh200-nvl256", p});
  }
  return presets;
}

int Digits(int count) {
  int digits = 1;
  for (int n = std::max(count - 1, 1); n >= 10; n /= 10) ++digits;
  return digits;
}

absl::Status Validate(const ClosParams& p) {
  auto positive = [](absl::string_view field, double value) -> absl::Status {
    if (std::isfinite(value) && value > 0) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrFormat("%s must be > 0, got %g", field, value));
  };
  if (p.tiers != 2 && p.tiers != 3) {
    return absl::InvalidArgumentError(absl::StrCat("tiers must be 2 or 3, got ", p.tiers));
  }
  if (p.tiers == 2 && p.pods != 1) {
    return absl::InvalidArgumentError("pods must be 1 in a 2-tier fabric (cores join pods)");
  }
  TP_RETURN_IF_ERROR(positive("pods", p.pods));
  TP_RETURN_IF_ERROR(positive("blocks_per_pod", p.blocks_per_pod));
  TP_RETURN_IF_ERROR(positive("nodes_per_block", p.nodes_per_block));
  TP_RETURN_IF_ERROR(positive("gpus_per_node", p.gpus_per_node));
  TP_RETURN_IF_ERROR(positive("rails", p.rails));
  TP_RETURN_IF_ERROR(positive("nic_gbps", p.nic_gbps));
  TP_RETURN_IF_ERROR(positive("spines_per_pod", p.spines_per_pod));
  TP_RETURN_IF_ERROR(positive("nodes_per_nvlink_domain", p.nodes_per_nvlink_domain));
  if (p.nodes_per_block % p.nodes_per_nvlink_domain != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "nodes_per_nvlink_domain (", p.nodes_per_nvlink_domain, ") must divide nodes_per_block (",
        p.nodes_per_block, "): an NVLink domain sits under one leaf group"));
  }
  TP_RETURN_IF_ERROR(positive("leaf_uplink_gbps", p.leaf_uplink_gbps));
  TP_RETURN_IF_ERROR(positive("leaf_oversubscription", p.leaf_oversubscription));
  if (p.rail_planes && p.spines_per_pod % p.rails != 0) {
    return absl::InvalidArgumentError(absl::StrCat("spines_per_pod (", p.spines_per_pod,
                                                   ") must be a multiple of rails (", p.rails,
                                                   ") when rail_planes is set"));
  }
  if (p.tiers == 3) {
    TP_RETURN_IF_ERROR(positive("cores", p.cores));
    TP_RETURN_IF_ERROR(positive("spine_uplink_gbps", p.spine_uplink_gbps));
    TP_RETURN_IF_ERROR(positive("spine_oversubscription", p.spine_oversubscription));
  }
  return absl::OkStatus();
}

// Cables to each of `peers` upper switches that carry `down_gbps / oversubscription`.
int CablesPerPeer(double down_gbps, double oversubscription, double cable_gbps, int peers) {
  const double cables = down_gbps / oversubscription / cable_gbps;
  return std::max(1, static_cast<int>(std::lround(cables / peers)));
}

// Host `n` of `block` with its NICs (one per rail, each cabled to the block's leaf of its
// rail) and GPUs (split over two NUMA nodes, each affine to its rail's NIC).
absl::Status AddClosNode(FabricBuilder& b, const ClosParams& p, int block, int n,
                         const std::vector<SwitchId>& leaves,
                         const std::vector<std::string>& nic_names) {
  const int block_digits = std::max(2, Digits(p.pods * p.blocks_per_pod));
  const int node_digits = std::max(3, Digits(p.nodes_per_block));
  const std::string domain =
      p.nodes_per_nvlink_domain > 1
          ? absl::StrFormat("nvl-b%0*d-d%d", block_digits, block, n / p.nodes_per_nvlink_domain)
          : "";
  TP_ASSIGN_OR_RETURN(
      HostId host,
      b.AddHost(absl::StrFormat("b%0*d-n%0*d", block_digits, block, node_digits, n), domain));
  if (!p.gpu_model.empty()) TP_RETURN_IF_ERROR(b.SetGpuModel(host, p.gpu_model));
  std::vector<NicId> nics;
  for (int r = 0; r < p.rails; ++r) {
    TP_ASSIGN_OR_RETURN(NicId nic, b.AddNic(host, nic_names[r], p.nic_gbps));
    nics.push_back(nic);
    TP_RETURN_IF_ERROR(
        b.AddLink(NicEnd(nic), SwitchEnd(leaves[r]), {.speed_gbps = p.nic_gbps}).status());
  }
  for (int g = 0; g < p.gpus_per_node; ++g) {
    const int numa = g < p.gpus_per_node / 2 ? 0 : 1;
    TP_RETURN_IF_ERROR(b.AddGpu(host, g, nics[g * p.rails / p.gpus_per_node], numa).status());
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<FabricPtr> GenerateClos(const ClosParams& p) {
  TP_RETURN_IF_ERROR(Validate(p));
  FabricBuilder b(p.name);
  const int total_blocks = p.pods * p.blocks_per_pod;
  const int block_digits = std::max(2, Digits(total_blocks));
  const int spine_digits = std::max(2, Digits(p.spines_per_pod));
  const int spines_per_leaf = p.rail_planes ? p.spines_per_pod / p.rails : p.spines_per_pod;
  const int leaf_cables = CablesPerPeer(p.nodes_per_block * p.nic_gbps, p.leaf_oversubscription,
                                        p.leaf_uplink_gbps, spines_per_leaf);

  std::vector<std::string> nic_names(p.rails);
  for (int r = 0; r < p.rails; ++r) nic_names[r] = absl::StrCat("mlx5_", r);

  std::vector<SwitchId> cores;
  for (int c = 0; c < (p.tiers == 3 ? p.cores : 0); ++c) {
    TP_ASSIGN_OR_RETURN(
        SwitchId id, b.AddSwitch(absl::StrFormat("core-%0*d", std::max(2, Digits(p.cores)), c), 3));
    cores.push_back(id);
  }

  for (int pod = 0; pod < p.pods; ++pod) {
    std::vector<SwitchId> spines;
    for (int s = 0; s < p.spines_per_pod; ++s) {
      TP_ASSIGN_OR_RETURN(SwitchId id,
                          b.AddSwitch(absl::StrFormat("spine-p%d-s%0*d", pod, spine_digits, s), 2));
      spines.push_back(id);
    }
    for (int local_block = 0; local_block < p.blocks_per_pod; ++local_block) {
      const int block = pod * p.blocks_per_pod + local_block;
      std::vector<SwitchId> leaves;
      for (int r = 0; r < p.rails; ++r) {
        TP_ASSIGN_OR_RETURN(
            SwitchId leaf,
            b.AddSwitch(absl::StrFormat("leaf-b%0*d-r%d", block_digits, block, r), 1));
        leaves.push_back(leaf);
        const int first = p.rail_planes ? r * spines_per_leaf : 0;
        for (int s = first; s < first + spines_per_leaf; ++s) {
          TP_RETURN_IF_ERROR(b.AddLink(SwitchEnd(leaf), SwitchEnd(spines[s]),
                                       {.speed_gbps = p.leaf_uplink_gbps, .count = leaf_cables})
                                 .status());
        }
      }
      for (int n = 0; n < p.nodes_per_block; ++n) {
        TP_RETURN_IF_ERROR(AddClosNode(b, p, block, n, leaves, nic_names));
      }
    }
    if (p.tiers == 3) {
      const int leaves_per_spine = p.blocks_per_pod * p.rails / (p.rail_planes ? p.rails : 1);
      const double spine_down = leaves_per_spine * leaf_cables * p.leaf_uplink_gbps;
      const int spine_cables =
          CablesPerPeer(spine_down, p.spine_oversubscription, p.spine_uplink_gbps, p.cores);
      for (SwitchId spine : spines) {
        for (SwitchId core : cores) {
          TP_RETURN_IF_ERROR(b.AddLink(SwitchEnd(spine), SwitchEnd(core),
                                       {.speed_gbps = p.spine_uplink_gbps, .count = spine_cables})
                                 .status());
        }
      }
    }
  }
  return std::move(b).Build();
}

absl::StatusOr<ClosParams> PresetParams(absl::string_view name) {
  for (const Preset& preset : Presets()) {
    if (preset.name == name) return preset.params;
  }
  return absl::NotFoundError(absl::StrCat(
      "unknown fabric preset '", name, "'; known presets: ", absl::StrJoin(PresetNames(), ", ")));
}

std::vector<std::string> PresetNames() {
  std::vector<std::string> names;
  for (const Preset& preset : Presets()) names.emplace_back(preset.name);
  return names;
}

absl::StatusOr<FabricPtr> GeneratePreset(absl::string_view name) {
  TP_ASSIGN_OR_RETURN(ClosParams params, PresetParams(name));
  return GenerateClos(params);
}

}  // namespace topoplace
