#include "scheduler/traffic/routing.h"

namespace topoplace::sched {

NicId Router::SendingNic(const RankSlot& a, const RankSlot& b) const {
  if (!options_.rail_local || a.nic < 0 || b.nic < 0) return a.nic;
  const int rail_index = fabric_.nics()[b.nic].index;
  const std::vector<NicId>& nics = fabric_.hosts()[a.host].nics;
  if (rail_index < 0 || rail_index >= static_cast<int>(nics.size())) return a.nic;
  return nics[rail_index];
}

Tier Router::Classify(const RankSlot& a, const RankSlot& b) const {
  if (a.host == b.host) return Tier::kNvlink;
  const Host& ha = fabric_.hosts()[a.host];
  const Host& hb = fabric_.hosts()[b.host];
  if (ha.nvlink_domain_id >= 0 && ha.nvlink_domain_id == hb.nvlink_domain_id) {
    return Tier::kNvlink;
  }
  const NicId from = SendingNic(a, b);
  if (from < 0 || b.nic < 0) return Tier::kUnreachable;
  return fabric_.NicTier(from, b.nic);
}

}  // namespace topoplace::sched
