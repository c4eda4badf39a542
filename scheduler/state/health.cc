#include "scheduler/state/health.h"

namespace topoplace::sched {

HealthView::HealthView(const Fabric& fabric, const FabricHealth& health)
    : host_usable_(fabric.hosts().size(), 1),
      host_degraded_(fabric.hosts().size(), 0),
      block_bad_uplinks_(fabric.blocks().size(), 0) {
  const auto switch_down = [&](SwitchId s) { return health.unhealthy_switches.contains(s); };
  for (HostId h : health.unhealthy_hosts) {
    if (h >= 0 && h < static_cast<HostId>(host_usable_.size())) host_usable_[h] = 0;
  }
  for (LinkId l = 0; l < static_cast<LinkId>(fabric.links().size()); ++l) {
    const Link& link = fabric.links()[l];
    const bool down = link.state == LinkState::kDown || health.unhealthy_links.contains(l);
    const bool degraded = link.state == LinkState::kDegraded || health.degraded_links.contains(l);
    if (!down && !degraded) continue;
    const bool a_nic = link.a.kind == Endpoint::Kind::kNic;
    const bool b_nic = link.b.kind == Endpoint::Kind::kNic;
    if (a_nic || b_nic) {
      const HostId h = fabric.nics()[a_nic ? link.a.id : link.b.id].host;
      if (down) host_usable_[h] = 0;
      if (degraded) host_degraded_[h] = 1;
      continue;
    }
    // Switch-switch link: charge it to the block of its leaf end, if any.
    for (const Endpoint& end : {link.a, link.b}) {
      const Switch& sw = fabric.switches()[end.id];
      if (sw.tier == 1 && sw.block >= 0) ++block_bad_uplinks_[sw.block];
    }
  }
  for (NicId n = 0; n < static_cast<NicId>(fabric.nics().size()); ++n) {
    const Nic& nic = fabric.nics()[n];
    if (nic.leaf >= 0 && switch_down(nic.leaf)) host_usable_[nic.host] = 0;
  }
  // A dead spine or core removes uplink capacity from every block below it; we charge
  // each block once per dead switch above tier 1 (cheap and monotone, not a flow model).
  for (SwitchId s : health.unhealthy_switches) {
    if (s < 0 || s >= static_cast<SwitchId>(fabric.switches().size())) continue;
    if (fabric.switches()[s].tier < 2) continue;
    for (int& bad : block_bad_uplinks_) ++bad;
  }
  for (uint8_t usable : host_usable_) unusable_hosts_ += usable ? 0 : 1;
}

}  // namespace topoplace::sched
