// Parameterised generators for rail-optimised Clos fabrics, and the named reference
// presets every test and benchmark can use (rail-512, superpod-4su, rail-28k, clos3-100k,
// and the NVLink-domain fabrics gb200-nvl72 and gh200-nvl256).
//
//   TP_ASSIGN_OR_RETURN(FabricPtr f, GeneratePreset("superpod-4su"));
//   ClosParams p = ...;  p.nodes_per_block = 16;
//   TP_ASSIGN_OR_RETURN(FabricPtr mine, GenerateClos(p));
//
// Naming: hosts "bBB-nNNN" (global block, node in block), NICs "mlx5_R" (R = rail),
// leaves "leaf-bBB-rR", spines "spine-pP-sSS", cores "core-CC"; widths grow with counts.
// NVLink domains (when nodes_per_nvlink_domain > 1) are "nvl-bBB-dD": the D-th run of
// nodes_per_nvlink_domain consecutive hosts of block BB (a rack of trays on one NVLink
// switch fabric).
#ifndef TOPOPLACE_TOPOLOGY_GENERATE_REFERENCE_FABRICS_H_
#define TOPOPLACE_TOPOLOGY_GENERATE_REFERENCE_FABRICS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "topology/model/fabric.h"

namespace topoplace {

// A 2- or 3-tier rail-optimised Clos: every block has one leaf per rail; NIC r of every
// host in the block is cabled to the block's rail-r leaf.
struct ClosParams {
  std::string name = "custom";
  int tiers = 2;  // 2: leaf+spine; 3: leaf+spine+core (pods joined by cores)
  int pods = 1;   // must be 1 when tiers == 2
  int blocks_per_pod = 1;
  int nodes_per_block = 32;
  int gpus_per_node = 8;
  int rails = 8;  // NICs per node; GPU g uses NIC g * rails / gpus_per_node
  double nic_gbps = 400;
  int spines_per_pod = 8;
  // Rail planes: spines are split evenly among rails and a rail-r leaf only reaches the
  // rail-r spines (as in rail-only designs). Otherwise every leaf reaches every spine.
  bool rail_planes = false;
  double leaf_uplink_gbps = 400;
  double leaf_oversubscription = 1.0;  // leaf down bandwidth / up bandwidth
  int cores = 0;                       // tiers == 3 only
  double spine_uplink_gbps = 400;
  double spine_oversubscription = 1.0;
  // Hosts per NVLink domain (multi-node NVLink: a GB200 NVL72 rack is 18 trays of 4 GPUs);
  // must divide nodes_per_block, so a domain sits under one leaf group. 1: each host is
  // its own domain (NVLink inside the node only).
  int nodes_per_nvlink_domain = 1;
  // Every host's GPU model (Host::gpu_model): which constants the step-time model uses.
  std::string gpu_model = "H100";
};

// Builds the fabric `p` describes. InvalidArgument names the offending parameter.
absl::StatusOr<FabricPtr> GenerateClos(const ClosParams& p);

// The parameters of a named preset; NotFound lists the known names.
absl::StatusOr<ClosParams> PresetParams(absl::string_view name);
// Known preset names in a stable order.
std::vector<std::string> PresetNames();
// GenerateClos(PresetParams(name)).
absl::StatusOr<FabricPtr> GeneratePreset(absl::string_view name);

}  // namespace topoplace

#endif  // TOPOPLACE_TOPOLOGY_GENERATE_REFERENCE_FABRICS_H_
