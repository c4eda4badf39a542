#include "scheduler/traffic/tier_index.h"

namespace topoplace::sched {

TierIndex::TierIndex(const Fabric& fabric) : fabric_(fabric), levels_(fabric.max_tier()) {
  const size_t width = static_cast<size_t>(levels_) + 2;
  nic_records_.assign(fabric.nics().size() * width, -1);
  for (NicId n = 0; n < static_cast<NicId>(fabric.nics().size()); ++n) {
    const Nic& nic = fabric.nics()[n];
    int32_t* rec = &nic_records_[n * width];
    rec[levels_] = nic.rail;
    rec[levels_ + 1] = nic.leaf;
    if (nic.leaf < 0) continue;
    for (int k = 0; k < levels_; ++k) rec[k] = fabric.LeafDomain(nic.leaf, k + 1);
  }
  for (const Host& host : fabric.hosts()) {
    host_nvlink_.push_back(host.nvlink_domain_id);
    host_block_.push_back(host.block);
    host_pod_.push_back(host.pod);
  }
}

}  // namespace topoplace::sched
