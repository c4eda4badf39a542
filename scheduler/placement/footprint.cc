#include "scheduler/placement/footprint.h"

#include <vector>

namespace topoplace::sched {

PlanFootprint ComputeFootprint(const Inventory& inv, const HealthView& health,
                               const TierIndex& index, std::span<const RankSlot> slots) {
  const Fabric& fabric = inv.fabric();
  PlanFootprint fp;
  std::vector<int> gpus_in_block(fabric.blocks().size(), 0);
  std::vector<uint8_t> leaf_seen(fabric.switches().size(), 0);
  std::vector<uint8_t> pod_seen(fabric.pods().size(), 0);
  HostId last_host = -1;
  for (const RankSlot& s : slots) {
    const int32_t block = index.host_block(s.host);
    const int32_t pod = index.host_pod(s.host);
    if (block >= 0) ++gpus_in_block[block];
    if (s.nic >= 0) {
      const SwitchId leaf = index.nic_leaf(s.nic);
      if (leaf >= 0 && !leaf_seen[leaf]) {
        leaf_seen[leaf] = 1;
        ++fp.leaves_used;
      }
    }
    if (pod >= 0 && !pod_seen[pod]) {
      pod_seen[pod] = 1;
      ++fp.pods_used;
    }
    // Slots of one node are consecutive.
    if (s.host != last_host) {
      ++fp.nodes;
      if (health.host_degraded(s.host)) ++fp.degraded_hosts;
      last_host = s.host;
    }
  }
  for (int32_t b = 0; b < static_cast<int32_t>(gpus_in_block.size()); ++b) {
    if (gpus_in_block[b] == 0) continue;
    ++fp.blocks_used;
    if (health.block_bad_uplinks(b) > 0) ++fp.blocks_with_bad_uplinks;
    const int free_before = inv.block_free_gpus(b);
    const int free_after = free_before - gpus_in_block[b];
    const int total = inv.block_total_gpus(b);
    fp.partial_blocks_before += (free_before > 0 && free_before < total) ? 1 : 0;
    fp.partial_blocks_after += (free_after > 0 && free_after < total) ? 1 : 0;
  }
  return fp;
}

}  // namespace topoplace::sched
