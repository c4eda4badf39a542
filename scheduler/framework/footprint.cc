#include "scheduler/framework/footprint.h"

#include <vector>

namespace topoplace::sched {

void CountBlocks(const Inventory& inv, const HealthView& health, std::span<const int> gpus_in_block,
                 PlanFootprint& fp) {
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
}

PlanFootprint ComputeFootprint(const Inventory& inv, const HealthView& health,
                               std::span<const RankSlot> slots,
                               std::span<const Attachment> attachments) {
  const Fabric& fabric = inv.fabric();
  PlanFootprint fp;
  std::vector<int> gpus_in_block(fabric.blocks().size(), 0);
  std::vector<uint8_t> leaf_seen(fabric.switches().size(), 0);
  std::vector<uint8_t> pod_seen(fabric.pods().size(), 0);
  // Slots of one node are consecutive: host facts are read once per node.
  for (size_t r = 0; r < slots.size();) {
    const HostId host = slots[r].host;
    const Attachment& first = attachments[r];
    size_t end = r + 1;
    while (end < slots.size() && slots[end].host == host) ++end;
    for (size_t i = r; i < end; ++i) {
      const SwitchId leaf = attachments[i].leaf;
      if (leaf >= 0 && !leaf_seen[leaf]) {
        leaf_seen[leaf] = 1;
        ++fp.leaves_used;
      }
    }
    if (first.block >= 0) gpus_in_block[first.block] += static_cast<int>(end - r);
    if (first.pod >= 0 && !pod_seen[first.pod]) {
      pod_seen[first.pod] = 1;
      ++fp.pods_used;
    }
    ++fp.nodes;
    if (health.host_degraded(host)) ++fp.degraded_hosts;
    r = end;
  }
  CountBlocks(inv, health, gpus_in_block, fp);
  if (inv.nvlink_level()) {
    std::vector<int> gpus_in_domain(fabric.nvlink_domains().size(), 0);
    for (const RankSlot& slot : slots) {
      const int32_t d = fabric.hosts()[slot.host].nvlink_domain_id;
      if (d >= 0) ++gpus_in_domain[d];
    }
    for (int32_t d = 0; d < static_cast<int32_t>(gpus_in_domain.size()); ++d) {
      if (gpus_in_domain[d] == 0) continue;
      ++fp.nvlink_domains_used;
      const int free_before = inv.nvlink_free_gpus(d);
      const int free_after = free_before - gpus_in_domain[d];
      const int total = inv.nvlink_total_gpus(d);
      fp.partial_domains_before += (free_before > 0 && free_before < total) ? 1 : 0;
      fp.partial_domains_after += (free_after > 0 && free_after < total) ? 1 : 0;
    }
  }
  return fp;
}

}  // namespace topoplace::sched
