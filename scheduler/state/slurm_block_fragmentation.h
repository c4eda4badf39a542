// Slurm's block fragmentation metric (topology/block, `topology_g_get_fragmentation`),
// so the simulator can say how much of the cluster's block structure a policy leaves
// broken, in the unit Slurm's own scheduler minimises. A base block is available when
// every one of its nodes is free; an aggregate of a block size (BlockSizes, in base
// blocks, aligned and wholly inside the cluster) is broken when one of its base blocks is
// not available. The metric is the nodes of every broken base block and aggregate, each
// level counted, plus the busy nodes: 0 on an idle cluster, nodes x levels + nodes on a
// full one. As in Slurm, a level's aggregate found whole stays counted as open until a
// later block breaks it, even past the last aggregate that fits.
//
// Checked against the five cases of Slurm's own test (tests/fixtures/peers/slurm/).
#ifndef TOPOPLACE_SCHEDULER_STATE_SLURM_BLOCK_FRAGMENTATION_H_
#define TOPOPLACE_SCHEDULER_STATE_SLURM_BLOCK_FRAGMENTATION_H_

#include <cstdint>
#include <vector>

#include "scheduler/state/occupancy.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

// A cluster as Slurm's block plugin sees it.
struct SlurmBlockLayout {
  std::vector<std::vector<HostId>> base_blocks;  // in Slurm's (the export's) order
  int base_block_nodes = 0;                      // nodes a base block must have free
  std::vector<int> block_sizes = {1};            // in base blocks, ascending, first 1
  int64_t nodes_in_blocks = 0;
};

// The layout our slurm-block export writes for `fabric`: its blocks as base blocks, or its
// NVLink domains where they span hosts (GB200 NVL72 racks), with Slurm's default block
// sizes (every power of two up to the number of base blocks).
SlurmBlockLayout SlurmBlockLayoutOf(const Fabric& fabric);

// The metric for the nodes in `node_free` (indexed by HostId; a node is free when all its
// GPUs are).
int64_t SlurmBlockFragmentation(const SlurmBlockLayout& layout, const std::vector<bool>& node_free);
// The same for `occupancy`: a host is free when none of its GPUs is busy.
int64_t SlurmBlockFragmentation(const SlurmBlockLayout& layout, const Fabric& fabric,
                                const Occupancy& occupancy);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_STATE_SLURM_BLOCK_FRAGMENTATION_H_
