// The scheduler-agnostic view every exporter starts from: the fabric's blocks, pods and
// islands (pods joined at the top tier), with stable names. Exporters (Slurm topology
// files, Kubernetes labels, Kueue and Volcano objects) only render this.
#ifndef TOPOPLACE_PLUGINS_COMMON_DOMAIN_TREE_H_
#define TOPOPLACE_PLUGINS_COMMON_DOMAIN_TREE_H_

#include <functional>
#include <string>
#include <vector>

#include "topology/model/fabric.h"

namespace topoplace::plugins {

// Which hosts an export covers (e.g. only those in an operator's node list); empty: every
// host in a block.
using HostFilter = std::function<bool(HostId)>;

struct DomainTree {
  std::vector<std::string> block_names;  // by block id: "block-00"
  std::vector<std::string> pod_names;    // by pod id: "pod-0"
  // Block ids pod by pod, so that aligned groups of consecutive blocks stay in a pod; only
  // blocks with an exported host.
  std::vector<int32_t> block_order;
  // By block id: its exported hosts. By pod id: its blocks with exported hosts.
  std::vector<std::vector<HostId>> block_hosts;
  std::vector<std::vector<int32_t>> pod_blocks;
  // By host id: in a block and passed the filter.
  std::vector<bool> exported;
  // Pods whose leaves meet at the fabric's top tier; separate fabrics are separate
  // islands and nothing should join them. Only pods with exported blocks.
  std::vector<std::vector<int32_t>> islands;
  std::vector<std::string> island_names;  // "core-0"
  // Hosts that reach no switch (in no block), and hosts in blocks the filter left out.
  std::vector<HostId> isolated_hosts;
  std::vector<HostId> filtered_out;
};

// Names are those of the whole fabric, whatever the filter keeps, so a block is called the
// same in every export.
DomainTree BuildDomainTree(const Fabric& fabric, const HostFilter& keep = {});

}  // namespace topoplace::plugins

#endif  // TOPOPLACE_PLUGINS_COMMON_DOMAIN_TREE_H_
