#include "scheduler/traffic/tier_index.h"


namespace topoplace::sched {

TierIndex::TierIndex(const Fabric& fabric) : fabric_(fabric) {
  const int levels = fabric.max_tier();
  host_attachments_.reserve(fabric.hosts().size());
  for (HostId h = 0; h < static_cast<HostId>(fabric.hosts().size()); ++h) {
    const Host& host = fabric.hosts()[h];
    host_attachments_.push_back(Attachment{{-1, -1, -1},
                                           -1,
                                           -1,
                                           host.block,
                                           host.pod,
                                           host.nvlink_domain_id >= 0 ? host.nvlink_domain_id
                                                                      : -2 - h});
  }
  nic_attachments_.reserve(fabric.nics().size());
  for (NicId n = 0; n < static_cast<NicId>(fabric.nics().size()); ++n) {
    const Nic& nic = fabric.nics()[n];
    Attachment a = host_attachments_[nic.host];
    a.rail = nic.rail;
    a.leaf = nic.leaf;
    if (nic.leaf >= 0 && levels > 0) {
      for (int k = 0; k < kMaxSwitchTier; ++k) {
        // Below the top: the group at tier k+1; the last slot takes the top tier.
        const int tier = k + 1 < kMaxSwitchTier ? k + 1 : levels;
        // A NIC-unique negative value for tiers the fabric lacks (never -1, never shared).
        a.domain[k] = tier <= levels ? fabric.LeafDomain(nic.leaf, tier) : -2 - n;
      }
    }
    nic_attachments_.push_back(a);
  }
}

std::unique_ptr<Attachment[]> TierIndex::Attach(std::span<const RankSlot> slots) const {
  // Every element is written below: skip the zeroing a vector would do.
  auto out = std::make_unique_for_overwrite<Attachment[]>(slots.size());
  for (size_t r = 0; r < slots.size(); ++r) out[r] = SlotAttachment(slots[r]);
  return out;
}

}  // namespace topoplace::sched
