// Kubernetes objects from a Fabric, as YAML ready for `kubectl apply -f`:
// - node labels: our keys (topoplace.io/block, /pod, /nvlink-domain, /rail-<r>-leaf) and
//   topograph v1.0.0's (NVIDIA/topograph@aab33e18, docs/engines/k8s.md), which KAI, Kueue
//   and NVSentinel read: fabric.topograph.run/tier-N, closest to the node first (tier-0
//   the block, tier-1 the pod, tier-2 the island of pods, where there is one), and on hosts
//   of an NVLink domain that spans hosts accelerator.topograph.run/domain (its value: the
//   domain's name where it is a valid label value, as discovery's "<ClusterUUID>.<CliqueId>"
//   is). The keys topograph used before v1.0.0 (network.topology.nvidia.com/accelerator,
//   /leaf, /spine, /core) only on request, for consumers that still read them;
// - a Kueue Topology whose levels are pod, block, [NVLink domain,] hostname (v1beta2, what
//   current Kueue stores; v1beta1 for older Kueue; v1alpha1 is no longer served by Kueue);
// - a KAI Topology (kai.scheduler/v1alpha1) with the same levels;
// - Volcano HyperNodes: tier 1 per block (its nodes, selected by the block label), tier 2
//   per pod (its blocks), tier 3 per island of several pods.
#ifndef TOPOPLACE_PLUGINS_K8S_TOPOLOGY_EXPORT_H_
#define TOPOPLACE_PLUGINS_K8S_TOPOLOGY_EXPORT_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "plugins/common/domain_tree.h"
#include "scheduler/job/job_spec.h"
#include "topology/model/fabric.h"

namespace topoplace::k8s {

inline constexpr char kBlockLabel[] = "topoplace.io/block";
inline constexpr char kPodLabel[] = "topoplace.io/pod";
inline constexpr char kNvlinkDomainLabel[] = "topoplace.io/nvlink-domain";
inline constexpr char kTopographDomainLabel[] = "accelerator.topograph.run/domain";

inline constexpr char kTopographTierLabelPrefix[] = "fabric.topograph.run/tier-";

// The node-label key to name in a Kubernetes Workload's topology constraint
// (scheduling.k8s.io/v1alpha2 PodGroup schedulingConstraints.topology[].key, v1.36's
// topology-aware workload scheduling) to keep a job inside one of our domains of `tier`:
// that API groups nodes by the value of one key alone, and each of our keys' values names
// one domain across the whole cluster (block-00, pod-0, nvl-7). Leaf and block: the block
// key; pod: the pod key; cluster: "" (no constraint); nvlink: kNvlinkDomainLabel (a rack).
absl::string_view WorkloadTopologyKey(sched::MaxTier tier);

struct NodeLabelOptions {
  bool topograph_legacy_labels = false;  // also network.topology.nvidia.com/* (pre-v1.0.0)
};

// One partial Node object per host in a block that `keep` keeps (all by default), carrying
// only labels (kubectl apply merges).
std::string RenderNodeLabels(const Fabric& fabric, const plugins::HostFilter& keep = {},
                             const NodeLabelOptions& options = {});
// Kueue API versions a Topology can be written in.
enum class KueueApiVersion { kV1beta2, kV1beta1 };
inline constexpr char kKueueApiVersions[] = "v1beta2 (default), v1beta1";

// "v1beta2" or "v1beta1"; InvalidArgument naming the versions Kueue serves otherwise
// (v1alpha1 was removed from Kueue).
absl::StatusOr<KueueApiVersion> ParseKueueApiVersion(absl::string_view text);

// A kueue.x-k8s.io Topology named after the fabric.
std::string RenderKueueTopology(const Fabric& fabric,
                                KueueApiVersion version = KueueApiVersion::kV1beta2);
// A cluster-scoped kai.scheduler/v1alpha1 Topology named after the fabric.
std::string RenderKaiTopology(const Fabric& fabric);
// topology.volcano.sh/v1alpha1 HyperNode objects for the blocks holding a host `keep`
// keeps. Tier-1 HyperNodes select their nodes by the block label of RenderNodeLabels
// (`labelMatch`), so apply the labels too.
std::string RenderVolcanoHyperNodes(const Fabric& fabric, const plugins::HostFilter& keep = {});

}  // namespace topoplace::k8s

#endif  // TOPOPLACE_PLUGINS_K8S_TOPOLOGY_EXPORT_H_
