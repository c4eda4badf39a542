// The scheduler-agnostic view every exporter starts from: the fabric's blocks, pods and
// islands (pods joined at the top tier), with stable names. Exporters (Slurm topology
// files, Kubernetes labels, Kueue and Volcano objects) only render this.
#ifndef TOPOPLACE_PLUGINS_COMMON_DOMAIN_TREE_H_
#define TOPOPLACE_PLUGINS_COMMON_DOMAIN_TREE_H_

#include <string>
#include <vector>

#include "topology/model/fabric.h"

namespace topoplace::exporters {

struct DomainTree {
  std::vector<std::string> block_names;  // by block id: "block-00"
  std::vector<std::string> pod_names;    // by pod id: "pod-0"
  // Block ids pod by pod, so that aligned groups of consecutive blocks stay in a pod.
  std::vector<int32_t> block_order;
  // Pods whose leaves meet at the fabric's top tier; separate fabrics are separate
  // islands and nothing should join them.
  std::vector<std::vector<int32_t>> islands;
  std::vector<std::string> island_names;  // "core-0"
  // Hosts that reach no switch (in no block).
  std::vector<HostId> isolated_hosts;
};

DomainTree BuildDomainTree(const Fabric& fabric);

}  // namespace topoplace::exporters

#endif  // TOPOPLACE_PLUGINS_COMMON_DOMAIN_TREE_H_
