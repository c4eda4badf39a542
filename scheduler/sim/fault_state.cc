#include "scheduler/sim/fault_state.h"

#include <algorithm>

namespace topoplace::sched::sim {
namespace {

bool IsSwitch(const Endpoint& e) { return e.kind == Endpoint::Kind::kSwitch; }

}  // namespace

FaultState::FaultState(const Fabric& fabric)
    : fabric_(&fabric),
      link_failed_(fabric.links().size()),
      switch_failed_(fabric.switches().size()),
      hosts_down_(fabric.hosts().size()),
      degraded_(fabric.links().size()),
      lower_(fabric.links().size(), -1),
      upper_(fabric.links().size(), -1),
      share_(fabric.links().size(), 1.0) {
  const std::vector<Switch>& switches = fabric.switches();
  for (size_t l = 0; l < fabric.links().size(); ++l) {
    const Link& link = fabric.links()[l];
    if (!IsSwitch(link.a) || !IsSwitch(link.b)) continue;
    const int ta = switches[link.a.id].tier, tb = switches[link.b.id].tier;
    if (ta == tb) continue;
    lower_[l] = ta < tb ? link.a.id : link.b.id;
    upper_[l] = ta < tb ? link.b.id : link.a.id;
  }
}

std::vector<HostId> FaultState::HostsCutOff(const FaultElement& element) const {
  std::vector<HostId> hosts;
  switch (element.type) {
    case FaultElement::Type::kHost:
      hosts.push_back(element.id);
      break;
    case FaultElement::Type::kLink: {
      const Link& link = fabric_->links()[element.id];
      for (const Endpoint& end : {link.a, link.b}) {
        if (!IsSwitch(end)) hosts.push_back(fabric_->nics()[end.id].host);
      }
      break;
    }
    case FaultElement::Type::kSwitch:
      for (const Nic& nic : fabric_->nics()) {
        if (nic.leaf == element.id) hosts.push_back(nic.host);
      }
      break;
  }
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  return hosts;
}

std::vector<LinkId> FaultState::LinksDown(const FaultElement& element) const {
  std::vector<LinkId> links;
  if (element.type == FaultElement::Type::kLink) {
    links.push_back(element.id);
  } else if (element.type == FaultElement::Type::kSwitch) {
    const std::vector<Link>& all = fabric_->links();
    for (LinkId l = 0; l < static_cast<LinkId>(all.size()); ++l) {
      const Endpoint s{Endpoint::Kind::kSwitch, element.id};
      if (all[l].a == s || all[l].b == s) links.push_back(l);
    }
  }
  return links;
}

bool FaultState::CutsOffHosts(const FaultEvent& event) const {
  return event.kind == FaultKind::kFail && !HostsCutOff(event.element).empty();
}

void FaultState::Count(const FaultEvent& event, int delta) {
  changed_.clear();
  open_ += delta;
  const int32_t id = event.element.id;
  if (event.kind == FaultKind::kDegrade) {
    std::vector<double>& open = degraded_[id];
    if (delta > 0) {
      open.push_back(event.capacity);
    } else if (auto it = std::find(open.begin(), open.end(), event.capacity); it != open.end()) {
      open.erase(it);
    }
  } else {
    switch (event.element.type) {
      case FaultElement::Type::kHost:
        break;  // hosts_down_ below
      case FaultElement::Type::kSwitch:
        switch_failed_[id] += delta;
        break;
      case FaultElement::Type::kLink:
        link_failed_[id] += delta;
        break;
    }
    for (HostId h : HostsCutOff(event.element)) hosts_down_[h] += delta;
  }
  if (event.element.type != FaultElement::Type::kHost) Recompute();
}

void FaultState::Recompute() {
  const std::vector<Link>& links = fabric_->links();
  const size_t switches = fabric_->switches().size();
  // Cables per switch towards the tier above (up) and below (down), and how many are dead.
  std::vector<int64_t> up(switches), up_dead(switches), down(switches), down_dead(switches);
  auto dead = [&](size_t l) {
    return link_failed_[l] > 0 || switch_failed_[lower_[l]] > 0 || switch_failed_[upper_[l]] > 0;
  };
  for (size_t l = 0; l < links.size(); ++l) {
    if (lower_[l] < 0) continue;
    const int64_t cables = std::max(1, links[l].count);
    up[lower_[l]] += cables;
    down[upper_[l]] += cables;
    if (dead(l)) {
      up_dead[lower_[l]] += cables;
      down_dead[upper_[l]] += cables;
    }
  }
  for (size_t l = 0; l < links.size(); ++l) {
    double share = 1;
    for (double left : degraded_[l]) share = std::min(share, left);
    if (lower_[l] >= 0) {
      const SwitchId s = lower_[l], u = upper_[l];
      const double from_below =
          switch_failed_[s] > 0 ? 1.0 : static_cast<double>(up[s] - up_dead[s]) / up[s];
      const double from_above =
          switch_failed_[u] > 0 ? 1.0 : static_cast<double>(down[u] - down_dead[u]) / down[u];
      double route = std::min(from_below, from_above);
      if (switch_failed_[s] > 0 && switch_failed_[u] > 0) route = 0;
      share *= std::max(route, kCutOffShare);
    }
    if (share != share_[l]) {
      share_[l] = share;
      changed_.push_back(static_cast<LinkId>(l));
    }
  }
}

FabricHealth FaultState::Health(bool network) const {
  FabricHealth health;
  for (HostId h = 0; h < static_cast<HostId>(hosts_down_.size()); ++h) {
    if (hosts_down_[h] > 0) health.unhealthy_hosts.insert(h);
  }
  if (!network) return health;
  for (SwitchId s = 0; s < static_cast<SwitchId>(switch_failed_.size()); ++s) {
    if (switch_failed_[s] > 0) health.unhealthy_switches.insert(s);
  }
  for (LinkId l = 0; l < static_cast<LinkId>(link_failed_.size()); ++l) {
    if (link_failed_[l] > 0) health.unhealthy_links.insert(l);
    if (!degraded_[l].empty()) health.degraded_links.insert(l);
  }
  return health;
}

}  // namespace topoplace::sched::sim
