// Slurm topology files from a Fabric: topology.conf for topology/tree, topology.conf for
// topology/block (Slurm 23.11+), and topology.yaml (Slurm 25.05+, both topologies).
//
// Slurm's tree wants each node under exactly one leaf switch, but in a rail-optimised
// fabric every node reaches 8 rail leaves. The blocks (hosts sharing their leaf set) are
// therefore the tree's leaf switches; pods (blocks under one spine group) sit above them,
// and pods joined by a core tier sit under one root. Separate fabrics are never joined
// under an invented switch, so Slurm will not place one job across them.
//
// On fabrics whose NVLink domains span hosts (GB200 NVL72 racks), topology/block's blocks
// are the NVLink domains, as Slurm's block plugin is meant for them and NVIDIA's topograph
// exports them: one block per domain, BlockSizes the domain size times the powers of two
// whose aligned runs of domains stay inside one pod (Slurm topology.conf(5): "Successive
// BlockSizes must be a power of two larger than the prior values").
#ifndef TOPOPLACE_PLUGINS_SLURM_TOPOLOGY_EXPORT_H_
#define TOPOPLACE_PLUGINS_SLURM_TOPOLOGY_EXPORT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/common/domain_tree.h"
#include "plugins/common/node_name_map.h"
#include "topology/model/fabric.h"

namespace topoplace::slurm {

// The tree and blocks Slurm sees, before rendering.
struct SlurmTopology {
  struct TreeSwitch {
    std::string name;
    std::string nodes;     // hostlist of nodes; empty for an inner switch
    std::string children;  // hostlist of child switches; empty for a leaf
  };
  struct Block {
    std::string name;
    std::string nodes;   // empty: a placeholder holding the block's position
    std::string domain;  // the NVLink domain it stands for, if any (rendered as a comment)
  };
  std::vector<TreeSwitch> switches;   // leaves first, then upper levels
  std::vector<Block> blocks;          // in pod order, so aligned aggregates stay in a pod
  std::vector<int> block_sizes;       // base block size, then powers of two above it
  std::vector<std::string> warnings;  // e.g. hosts in no block, left out
};

struct BlockExportOptions {
  // The planning base block (BlockSizes' first entry), in nodes. 0: the smallest block
  // that is at least half the median block size. Blocks under the base are placeholders
  // (said in `warnings`): Slurm wants every block to hold at least the base size.
  int base_nodes = 0;
};

// Derives the Slurm view of the hosts of `fabric` that `keep` keeps (all by default).
// Topology/block's blocks are every block (or NVLink domain) of each pod with a kept host,
// in pod order, placeholders where fewer than the base's nodes are kept. FailedPrecondition
// if no kept host is in any block; InvalidArgument if `options.base_nodes` is negative or
// larger than every block.
absl::StatusOr<SlurmTopology> BuildSlurmTopology(const Fabric& fabric,
                                                 const plugins::NodeNameMap& names,
                                                 const plugins::HostFilter& keep = {},
                                                 const BlockExportOptions& options = {});

// Renderers; each starts with a comment naming the fabric and version.
std::string RenderTreeConf(const Fabric& fabric, const SlurmTopology& topology);
std::string RenderBlockConf(const Fabric& fabric, const SlurmTopology& topology);
std::string RenderTopologyYaml(const Fabric& fabric, const SlurmTopology& topology);

}  // namespace topoplace::slurm

#endif  // TOPOPLACE_PLUGINS_SLURM_TOPOLOGY_EXPORT_H_
