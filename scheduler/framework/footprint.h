// What a candidate occupies, beyond its traffic: how many leaves, blocks and pods it
// touches, how it changes the number of partly used blocks, and how many of its hosts or
// block uplinks are unhealthy. Computed once per candidate and read by the scorers.
#ifndef TOPOPLACE_SCHEDULER_FRAMEWORK_FOOTPRINT_H_
#define TOPOPLACE_SCHEDULER_FRAMEWORK_FOOTPRINT_H_

#include <span>

#include "scheduler/framework/inventory.h"
#include "scheduler/mapping/rank_map.h"
#include "scheduler/state/health.h"
#include "scheduler/traffic/tier_index.h"

namespace topoplace::sched {

struct PlanFootprint {
  int nodes = 0;
  int leaves_used = 0, blocks_used = 0, pods_used = 0;
  // Blocks that are partly used (some but not all GPUs free), before and after the plan.
  // A plan that starts a fresh block raises the count; one that completes a partly used
  // block lowers it.
  int partial_blocks_before = 0, partial_blocks_after = 0;
  int degraded_hosts = 0;
  int blocks_with_bad_uplinks = 0;  // among the blocks used
  // The same for NVLink domains, counted only on fabrics whose domains span hosts (where
  // every host is its own domain, block counts say it all).
  int nvlink_domains_used = 0;
  int partial_domains_before = 0, partial_domains_after = 0;
  int domain_fragmentation_delta() const { return partial_domains_after - partial_domains_before; }
  int fragmentation_delta() const { return partial_blocks_after - partial_blocks_before; }
};

// Adds to `fp` the block counts of a plan that takes gpus_in_block[b] GPUs of each block
// b: the blocks used, those with bad uplinks, and the partly used ones before and after.
void CountBlocks(const Inventory& inv, const HealthView& health, std::span<const int> gpus_in_block,
                 PlanFootprint& fp);

// Preconditions: `slots` come from MapRanks over hosts of `inv.fabric()`, and
// attachments[r] is the TierIndex attachment of slots[r] (TierIndex::Attach).
PlanFootprint ComputeFootprint(const Inventory& inv, const HealthView& health,
                               std::span<const RankSlot> slots,
                               std::span<const Attachment> attachments);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_FRAMEWORK_FOOTPRINT_H_
