#include "scheduler/traffic/tier_index.h"

namespace topoplace::sched {

TierIndex::TierIndex(const Fabric& fabric) : fabric_(fabric), levels_(fabric.max_tier()) {
  domains_.assign(fabric.nics().size() * static_cast<size_t>(levels_), -1);
  for (const Nic& nic : fabric.nics()) {
    nic_rail_.push_back(nic.rail);
    nic_leaf_.push_back(nic.leaf);
  }
  for (const Host& host : fabric.hosts()) {
    host_nvlink_.push_back(host.nvlink_domain_id);
    host_block_.push_back(host.block);
    host_pod_.push_back(host.pod);
  }
  for (NicId n = 0; n < static_cast<NicId>(fabric.nics().size()); ++n) {
    const SwitchId leaf = fabric.nics()[n].leaf;
    if (leaf < 0) continue;
    for (int k = 0; k < levels_; ++k) {
      domains_[static_cast<size_t>(n) * levels_ + k] = fabric.LeafDomain(leaf, k + 1);
    }
  }
}

}  // namespace topoplace::sched
