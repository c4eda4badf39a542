#include "scheduler/state/slurm_block_fragmentation.h"

#include <algorithm>
#include <limits>

namespace topoplace::sched {

SlurmBlockLayout SlurmBlockLayoutOf(const Fabric& fabric) {
  SlurmBlockLayout layout;
  const bool domains = fabric.nvlink_domains().size() < fabric.hosts().size();
  if (domains) {
    layout.base_blocks = fabric.nvlink_domains();
  } else {
    for (const Block& block : fabric.blocks()) layout.base_blocks.push_back(block.hosts);
  }
  layout.base_block_nodes = std::numeric_limits<int>::max();
  for (const std::vector<HostId>& b : layout.base_blocks) {
    layout.base_block_nodes = std::min(layout.base_block_nodes, static_cast<int>(b.size()));
    layout.nodes_in_blocks += static_cast<int64_t>(b.size());
  }
  if (layout.base_blocks.empty()) layout.base_block_nodes = 0;
  const int count = static_cast<int>(layout.base_blocks.size());
  for (int size = 2; size <= count; size *= 2) layout.block_sizes.push_back(size);
  return layout;
}

int64_t SlurmBlockFragmentation(const SlurmBlockLayout& layout,
                                const std::vector<bool>& node_free) {
  const int count = static_cast<int>(layout.base_blocks.size());
  const size_t levels = layout.block_sizes.size();
  // Per level: the aggregate being walked was whole when it began and is not yet counted.
  std::vector<bool> open_whole(levels, false);
  int64_t broken_blocks = 0;  // in base blocks, summed over levels
  int64_t free_nodes = 0;
  for (int b = 0; b < count; ++b) {
    int free_here = 0;
    for (HostId h : layout.base_blocks[static_cast<size_t>(b)]) {
      if (node_free[static_cast<size_t>(h)]) ++free_here;
    }
    free_nodes += free_here;
    const bool available = free_here >= layout.base_block_nodes;
    for (size_t j = 0; j < levels; ++j) {
      const int size = layout.block_sizes[j];
      const bool starts = b % size == 0 && size <= count - b;
      if (available) {
        if (starts && j > 0) open_whole[j] = true;
      } else if (open_whole[j] || starts) {
        broken_blocks += size;
        open_whole[j] = false;
      }
    }
  }
  return broken_blocks * layout.base_block_nodes + layout.nodes_in_blocks - free_nodes;
}

int64_t SlurmBlockFragmentation(const SlurmBlockLayout& layout, const Fabric& fabric,
                                const Occupancy& occupancy) {
  std::vector<bool> node_free(fabric.hosts().size());
  for (HostId h = 0; h < static_cast<HostId>(fabric.hosts().size()); ++h) {
    node_free[static_cast<size_t>(h)] =
        occupancy.free_gpus(h) == static_cast<int>(fabric.hosts()[h].gpus.size());
  }
  return SlurmBlockFragmentation(layout, node_free);
}

}  // namespace topoplace::sched
