// Bytes per iteration on every fabric link a plan crosses, in each direction: the NIC
// cables (access links), the leaf uplinks and the spine-to-core links. Traffic that leaves
// a leaf is spread over its usable uplinks in proportion to their bandwidth (ECMP as a
// fluid), and the part bound for the core is spread the same way over each spine's core
// links. On a rail-optimised fabric this is where rail alignment shows: rail-local pairs
// load only their two NIC cables, and only the bytes that climb appear on the uplinks.
//
//   LinkIndex links(*fabric, unhealthy_links, unhealthy_switches);  // once per health
//   TrafficReport full = EvaluateTraffic(layout, traffic, slots, attachments, router, g,
//                                        /*tally_network=*/true);
//   std::vector<LinkLoad> loads = LinkLoads(links, slots, full);
#ifndef TOPOPLACE_SCHEDULER_TRAFFIC_LINK_LOADS_H_
#define TOPOPLACE_SCHEDULER_TRAFFIC_LINK_LOADS_H_

#include <cstdint>
#include <span>
#include <vector>

#include "scheduler/mapping/rank_map.h"
#include "scheduler/traffic/traffic_report.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

// Bytes per iteration on one link. "Up" is towards the higher tier (NIC to leaf, leaf to
// spine, spine to core), "down" towards the hosts.
struct LinkLoad {
  LinkId link = -1;
  double up_bytes = 0;
  double down_bytes = 0;
};

// Per fabric, which link cables each NIC and which usable links lead up from each switch,
// with their ECMP shares. A link is usable unless it is down (on the fabric or in
// `unhealthy_links`) or ends at an unhealthy switch; a switch whose uplinks are all
// unusable spreads over all of them (the tiers say the path exists). Immutable;
// thread-safe for readers. Holds a reference to the fabric.
class LinkIndex {
 public:
  // `unhealthy_links` and `unhealthy_switches` are the placement health input's sets.
  LinkIndex(const Fabric& fabric, std::span<const LinkId> unhealthy_links,
            std::span<const SwitchId> unhealthy_switches);

  struct Uplink {
    LinkId link;
    SwitchId upper;  // the switch at the other end
    double share;    // of the bytes leaving the lower switch upwards; shares sum to 1
  };

  const Fabric& fabric() const { return fabric_; }
  // The cable of a NIC, -1 if uncabled.
  LinkId access_link(NicId nic) const { return access_[nic].link; }
  // The NIC's position in its host's NIC list.
  int32_t nic_position(NicId nic) const { return access_[nic].position; }
  std::span<const Uplink> uplinks(SwitchId s) const {
    return {uplinks_.data() + first_uplink_[s], uplinks_.data() + first_uplink_[s + 1]};
  }

 private:
  const Fabric& fabric_;
  struct Access {
    LinkId link;
    int32_t position;
  };
  std::vector<Access> access_;  // per NIC
  std::vector<Uplink> uplinks_;       // grouped by lower switch
  std::vector<size_t> first_uplink_;  // per switch, + one past the end
};

// The per-link bytes of an evaluated plan: access links in rank order of their first
// rank (then NICs that only rail-local forwarding uses), leaf uplinks by leaf, then
// spine-to-core links by spine; each link once, links that carry nothing left out.
// Preconditions: `traffic` came from EvaluateTraffic over `slots` on the fabric of
// `index`, with tally_network.
std::vector<LinkLoad> LinkLoads(const LinkIndex& index, std::span<const RankSlot> slots,
                                const TrafficReport& traffic);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_TRAFFIC_LINK_LOADS_H_
