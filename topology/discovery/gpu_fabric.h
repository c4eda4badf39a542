// A host's NVLink domain from its GPUs' fabric identity, as `nvidia-smi -q` prints it in
// each GPU's "Fabric" section (NVML's nvmlGpuFabricInfo_t: state, status, cliqueId,
// clusterUuid):
//
//   GPU 00000008:01:00.0
//       ...
//       Fabric
//           State                             : Completed
//           Status                            : Success
//           CliqueId                          : 2
//           ClusterUUID                       : dc6e40c4-d722-4357-9ba6-5291dd461278
//
// The domain is "<ClusterUUID>.<CliqueId>", the form NVIDIA's topograph puts in its
// accelerator.topograph.run/domain label and the GPU operator in nvidia.com/gpu.clique.
//
//   TP_ASSIGN_OR_RETURN(auto gpus, ParseNvidiaSmiFabric(text, "nvidia-smi -q"));
//   GpuFabricDomain d = NvlinkDomainOf(gpus);  // d.domain empty: the host is its own
//
// Pure functions; thread-safe.
#ifndef TOPOPLACE_TOPOLOGY_DISCOVERY_GPU_FABRIC_H_
#define TOPOPLACE_TOPOLOGY_DISCOVERY_GPU_FABRIC_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace topoplace::discovery {

// One GPU's Fabric section; fields as printed ("N/A" where the GPU has no NVLink fabric).
struct GpuFabricInfo {
  std::string gpu;  // the PCI bus id after "GPU "
  std::string state, status, clique_id, cluster_uuid;
  std::string product = {};  // "Product Name" ("NVIDIA GB200"); empty where not printed
};

// Every GPU of an `nvidia-smi -q` report with its Fabric section (a GPU whose report has
// none, from a driver older than the fabric query, gets "N/A" everywhere). InvalidArgument
// naming `source` and the line for a Fabric field outside any GPU or a line without " : ".
absl::StatusOr<std::vector<GpuFabricInfo>> ParseNvidiaSmiFabric(absl::string_view text,
                                                                absl::string_view source);

struct GpuFabricDomain {
  std::string domain;                 // "<ClusterUUID>.<CliqueId>"; empty: host alone
  std::vector<std::string> warnings;  // GPUs left out, and why
};

// The one domain every GPU whose fabric registration completed successfully reports.
// GPUs not supported (state N/A: no NVLink switch fabric) give no domain and no warning;
// GPUs not yet registered (Not Started, In Progress) or registered with an error status
// are left out with a warning; GPUs reporting different domains give none, with a warning
// (a host's GPUs are one tray of one NVLink domain).
GpuFabricDomain NvlinkDomainOf(const std::vector<GpuFabricInfo>& gpus);

}  // namespace topoplace::discovery

#endif  // TOPOPLACE_TOPOLOGY_DISCOVERY_GPU_FABRIC_H_
