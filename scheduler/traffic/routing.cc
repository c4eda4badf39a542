#include "scheduler/traffic/routing.h"

namespace topoplace::sched {

NicId Router::RailLocalNic(const RankSlot& a, const RankSlot& b) const {
  if (a.nic < 0 || b.nic < 0) return a.nic;
  const int rail_index = fabric_.nics()[b.nic].index;
  const std::vector<NicId>& nics = fabric_.hosts()[a.host].nics;
  if (rail_index < 0 || rail_index >= static_cast<int>(nics.size())) return a.nic;
  return nics[rail_index];
}

}  // namespace topoplace::sched
