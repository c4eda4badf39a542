#include "scheduler/traffic/link_loads.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace topoplace::sched {
namespace {

void Add(std::vector<LinkLoad>& loads, LinkId link, double up, double down) {
  if (link >= 0 && (up > 0 || down > 0)) loads.push_back({link, up, down});
}

}  // namespace

LinkIndex::LinkIndex(const Fabric& fabric, std::span<const LinkId> unhealthy_links,
                     std::span<const SwitchId> unhealthy_switches)
    : fabric_(fabric) {
  access_.reserve(fabric.nics().size());
  for (const Nic& nic : fabric.nics()) access_.push_back({-1, nic.index});
  const absl::flat_hash_set<LinkId> bad_links(unhealthy_links.begin(), unhealthy_links.end());
  const absl::flat_hash_set<SwitchId> bad_switches(unhealthy_switches.begin(),
                                                   unhealthy_switches.end());
  const std::vector<Switch>& switches = fabric.switches();
  struct Candidate {
    LinkId link;
    SwitchId upper;
    double bandwidth;
    bool usable;
  };
  std::vector<std::vector<Candidate>> up(switches.size());
  for (LinkId l = 0; l < static_cast<LinkId>(fabric.links().size()); ++l) {
    const Link& link = fabric.links()[l];
    const bool a_nic = link.a.kind == Endpoint::Kind::kNic;
    const bool b_nic = link.b.kind == Endpoint::Kind::kNic;
    if (a_nic != b_nic) {
      access_[a_nic ? link.a.id : link.b.id].link = l;
      continue;
    }
    if (a_nic) continue;  // NIC to NIC: no switch tier involved
    SwitchId lower = link.a.id, upper = link.b.id;
    if (switches[lower].tier > switches[upper].tier) std::swap(lower, upper);
    if (switches[lower].tier == 0 || switches[lower].tier == switches[upper].tier) continue;
    const bool usable = link.state != LinkState::kDown && !bad_links.contains(l) &&
                        !bad_switches.contains(lower) && !bad_switches.contains(upper);
    up[lower].push_back({l, upper, link.bandwidth_gbps(), usable});
  }
  first_uplink_.reserve(switches.size() + 1);
  for (std::vector<Candidate>& links : up) {
    first_uplink_.push_back(uplinks_.size());
    const bool any_usable =
        std::any_of(links.begin(), links.end(), [](const Candidate& c) { return c.usable; });
    double total = 0;
    for (const Candidate& c : links) {
      if (c.usable || !any_usable) total += std::max(c.bandwidth, 1e-9);
    }
    for (const Candidate& c : links) {
      if (!c.usable && any_usable) continue;
      uplinks_.push_back({c.link, c.upper, std::max(c.bandwidth, 1e-9) / total});
    }
  }
  first_uplink_.push_back(uplinks_.size());
}

std::vector<LinkLoad> LinkLoads(const LinkIndex& index, std::span<const RankSlot> slots,
                                const TrafficReport& traffic) {
  const NetworkTally& tally = traffic.network;
  // Access links, one entry per NIC, written in place (at most one per rank). A host's
  // ranks are consecutive, so a NIC that several ranks share is found among the entries of
  // its host's run; a bit per NIC position says whether to look.
  const size_t ranks = std::min(slots.size(), tally.rank.size());
  std::vector<LinkLoad> loads(ranks);
  size_t count = 0, run_begin = 0;
  HostId run_host = -1;
  uint64_t seen = 0;
  for (size_t r = 0; r < ranks; ++r) {
    const RankSlot& slot = slots[r];
    if (slot.host != run_host) {
      run_host = slot.host;
      run_begin = count;
      seen = 0;
    }
    const double up = tally.rank[r].sent, down = tally.rank[r].received;
    if (slot.nic < 0 || (up <= 0 && down <= 0)) continue;
    const LinkId link = index.access_link(slot.nic);
    if (link < 0) continue;
    const int32_t position = index.nic_position(slot.nic);
    const uint64_t bit = position >= 0 && position < 64 ? uint64_t{1} << position : 0;
    size_t same = count;
    if (bit == 0 || (seen & bit) != 0) {
      same = run_begin;
      while (same < count && loads[same].link != link) ++same;
    }
    seen |= bit;
    if (same == count) loads[count++] = {link, 0, 0};
    loads[same].up_bytes += up;
    loads[same].down_bytes += down;
  }
  loads.resize(count);
  if (!tally.forwarded_sent.empty()) {
    absl::flat_hash_map<LinkId, size_t> position;
    for (size_t i = 0; i < loads.size(); ++i) position.emplace(loads[i].link, i);
    for (const auto& [nic, bytes] : tally.forwarded_sent) {
      const LinkId link = index.access_link(nic);
      if (link < 0) continue;
      const auto [it, inserted] = position.try_emplace(link, loads.size());
      if (inserted) loads.push_back({link, 0, 0});
      loads[it->second].up_bytes += bytes;
    }
  }
  // Leaf uplinks (each has one lower end, so one entry); the bytes bound beyond the spine
  // gather per spine on the way.
  const std::vector<Switch>& switches = index.fabric().switches();
  const size_t n = tally.leaf_up.size();
  std::vector<double> core_up(n, 0.0), core_down(n, 0.0);
  for (SwitchId leaf = 0; leaf < static_cast<SwitchId>(n); ++leaf) {
    const double up = tally.leaf_up[leaf], down = tally.leaf_down[leaf];
    if (up <= 0 && down <= 0) continue;
    for (const LinkIndex::Uplink& u : index.uplinks(leaf)) {
      Add(loads, u.link, up * u.share, down * u.share);
      if (switches[u.upper].tier < kMaxSwitchTier) {
        core_up[u.upper] += tally.leaf_core_up[leaf] * u.share;
        core_down[u.upper] += tally.leaf_core_down[leaf] * u.share;
      }
    }
  }
  for (SwitchId spine = 0; spine < static_cast<SwitchId>(n); ++spine) {
    if (core_up[spine] <= 0 && core_down[spine] <= 0) continue;
    for (const LinkIndex::Uplink& u : index.uplinks(spine)) {
      Add(loads, u.link, core_up[spine] * u.share, core_down[spine] * u.share);
    }
  }
  return loads;
}

}  // namespace topoplace::sched
