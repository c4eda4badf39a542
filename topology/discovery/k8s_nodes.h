// NVLink domains from Kubernetes Node labels: `nvidia.com/gpu.clique=<ClusterUUID>.<CliqueId>`,
// which NVIDIA's GPU feature discovery sets on every node from the same NVML fabric info
// `nvidia-smi -q` prints (gpu_fabric.h): a tray's clique is its NVLink domain. Read from a
// NodeList as the apiserver returns it (GET /api/v1/nodes) or `kubectl get nodes -o json`
// writes it. Nodes without the label give no fact (CPU nodes, hosts alone).
//
//   TP_ASSIGN_OR_RETURN(FabricFacts f, LoadK8sNodeList("nodes.json"));
//
// fabric import merges these facts after every discovered source, so a label never
// overrides what a host's own GPUs report, and two racks whose GPUs name different
// domains do not merge because their labels say so (the merger warns instead).
#ifndef TOPOPLACE_TOPOLOGY_DISCOVERY_K8S_NODES_H_
#define TOPOPLACE_TOPOLOGY_DISCOVERY_K8S_NODES_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "topology/discovery/facts.h"

namespace topoplace::discovery {

inline constexpr char kCliqueLabel[] = "nvidia.com/gpu.clique";

// One host fact (name, nvlink_domain) per labelled node. InvalidArgument naming `origin`
// and the item for text that is not a NodeList, a node without metadata.name, or a clique
// label not of the form <ClusterUUID>.<CliqueId>.
absl::StatusOr<FabricFacts> ParseK8sNodeList(absl::string_view text, absl::string_view origin);
// The same for the file at `path`; NotFound if it cannot be read.
absl::StatusOr<FabricFacts> LoadK8sNodeList(const std::string& path);

}  // namespace topoplace::discovery

#endif  // TOPOPLACE_TOPOLOGY_DISCOVERY_K8S_NODES_H_
