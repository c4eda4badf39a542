// Kubernetes objects from a Fabric, as YAML ready for `kubectl apply -f`:
// - node labels: our keys (topoplace.io/block, /pod, /nvlink-domain, /rail-<r>-leaf) and
//   the Topograph-style keys other tools read (network.topology.nvidia.com/accelerator,
//   /leaf, /spine, /core), where leaf is the block, spine the pod, core the island;
// - a Kueue Topology whose levels are pod, block, hostname;
// - Volcano HyperNodes: tier 1 per block (its nodes), tier 2 per pod (its blocks), tier 3
//   per island of several pods.
#ifndef TOPOPLACE_PLUGINS_K8S_TOPOLOGY_EXPORT_H_
#define TOPOPLACE_PLUGINS_K8S_TOPOLOGY_EXPORT_H_

#include <string>

#include "topology/model/fabric.h"

namespace topoplace::k8s {

inline constexpr char kBlockLabel[] = "topoplace.io/block";
inline constexpr char kPodLabel[] = "topoplace.io/pod";

// One partial Node object per host in a block, carrying only labels (kubectl apply merges).
std::string RenderNodeLabels(const Fabric& fabric);
// A kueue.x-k8s.io/v1alpha1 Topology named after the fabric.
std::string RenderKueueTopology(const Fabric& fabric);
// topology.volcano.sh/v1alpha1 HyperNode objects.
std::string RenderVolcanoHyperNodes(const Fabric& fabric);

}  // namespace topoplace::k8s

#endif  // TOPOPLACE_PLUGINS_K8S_TOPOLOGY_EXPORT_H_
