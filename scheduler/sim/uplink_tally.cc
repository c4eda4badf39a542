#include "scheduler/sim/uplink_tally.h"

#include <algorithm>

namespace topoplace::sched {

UplinkTally::UplinkTally(const Fabric& fabric)
    : lower_(fabric.links().size(), -1),
      capacity_(fabric.switches().size(), 0),
      offered_(fabric.switches().size(), 0),
      busy_(fabric.switches().size(), 0) {
  const LinkIndex uplinks(fabric, {}, {});
  for (SwitchId s = 0; s < static_cast<SwitchId>(fabric.switches().size()); ++s) {
    for (const LinkIndex::Uplink& u : uplinks.uplinks(s)) {
      lower_[u.link] = s;
      capacity_[s] += fabric.links()[u.link].bandwidth_gbps() * 1e9 / 8;
    }
  }
}

UplinkTally::Offer UplinkTally::OfferOf(std::span<const LinkLoad> links, double step_s) const {
  Offer offer;
  if (step_s <= 0) return offer;
  for (const LinkLoad& load : links) {
    const SwitchId lower = lower_[load.link];
    if (lower < 0 || load.up_bytes <= 0) continue;
    auto same = std::find_if(offer.begin(), offer.end(),
                             [lower](const auto& entry) { return entry.first == lower; });
    if (same == offer.end()) {
      offer.emplace_back(lower, load.up_bytes / step_s);
    } else {
      same->second += load.up_bytes / step_s;
    }
  }
  return offer;
}

void UplinkTally::Apply(const Offer& offer, int sign) {
  for (const auto& [s, rate] : offer) {
    offered_[s] = std::max(0.0, offered_[s] + sign * rate);
    busy_[s] = capacity_[s] > 0 ? offered_[s] / capacity_[s] : 0;
  }
}

}  // namespace topoplace::sched
