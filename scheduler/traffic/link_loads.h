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

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
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
  // Which of the link's parallel cables (Link::count) carries these bytes: -1 when they are
  // spread evenly over all of them (fluid ECMP), else the one cable hashed flows took.
  int32_t cable = -1;
};

// How traffic that leaves a switch upwards picks among its uplinks.
enum class EcmpMode : uint8_t {
  // Spread over every usable uplink in proportion to its bandwidth: the long-run average
  // of many small flows, and the best any load balancer can do.
  kFluid,
  // Each flow (one directed rank pair) hashed onto one uplink cable, as switches hash a
  // flow's header fields: two elephant flows can share a cable while a parallel one idles
  // (a link of several bundled cables is that many choices). The
  // path is consistent: a flow comes down through the spine (and core switch) it went up
  // to wherever the destination leaf is cabled to it.
  kHash,
};

struct EcmpOptions {
  EcmpMode mode = EcmpMode::kFluid;
  uint64_t seed = 0;  // kHash: flow i of a plan is placed by a hash of (seed, i)
};

// Parses "fluid" or "hash"; InvalidArgument naming both otherwise.
absl::StatusOr<EcmpMode> ParseEcmpMode(absl::string_view name);
absl::string_view EcmpModeName(EcmpMode mode);

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
    // The shares of the lower switch's uplinks up to this one, summed in order: hashed
    // ECMP picks the first uplink whose sum exceeds the hash's point in [0, 1).
    double share_sum = 0;
    // The link's cables: first_cable(link) and cable_count(link), kept here for the hashed
    // path that reads them per flow.
    int64_t first_cable = 0;
    int32_t cables = 1;
  };

  const Fabric& fabric() const { return fabric_; }
  // The cable of a NIC, -1 if uncabled.
  LinkId access_link(NicId nic) const { return access_[nic].link; }
  // The NIC's position in its host's NIC list.
  int32_t nic_position(NicId nic) const { return access_[nic].position; }
  std::span<const Uplink> uplinks(SwitchId s) const {
    return {uplinks_.data() + first_uplink_[s], uplinks_.data() + first_uplink_[s + 1]};
  }
  // The first of uplinks(s) that reaches `upper`, or nullptr: O(log uplinks).
  const Uplink* towards(SwitchId s, SwitchId upper) const;
  // Whether towards(s, upper) is not null; O(1) where s is an upper switch itself (a
  // spine: the question of every flow through the core), else as towards.
  bool reaches(SwitchId s, SwitchId upper) const;
  // Every link's parallel cables (Link::count, at least 1) numbered in one range: cable c
  // of link l is first_cable(l) + c, below cables().
  int64_t first_cable(LinkId l) const { return first_cable_[static_cast<size_t>(l)]; }
  int64_t cable_count(LinkId l) const {
    return first_cable_[static_cast<size_t>(l) + 1] - first_cable_[static_cast<size_t>(l)];
  }
  int64_t cables() const { return first_cable_.back(); }

 private:
  // The reach table (rows: switches with uplinks that are some switch's upper; columns:
  // their uppers), left empty when over kMaxReachBits. Run once, by the constructor.
  void BuildReach();
  const Fabric& fabric_;
  struct Access {
    LinkId link;
    int32_t position;
  };
  std::vector<Access> access_;        // per NIC
  std::vector<Uplink> uplinks_;       // grouped by lower switch
  std::vector<size_t> first_uplink_;  // per switch, + one past the end
  // Per switch, its uplinks' (upper switch, position) in that order, at first_uplink_
  // like uplinks_.
  std::vector<std::pair<SwitchId, int32_t>> by_upper_;
  std::vector<int64_t> first_cable_;  // per link, + one past the end
  // For reaches(): the switches that are both above and below others (rows) and those
  // above them (columns), numbered densely (-1: not one), and a bit per (row, column)
  // pair linked upwards; empty where the matrix would exceed kMaxReachBits.
  static constexpr size_t kMaxReachBits = size_t{1} << 26;
  std::vector<int32_t> reach_row_, reach_column_;
  size_t reach_columns_ = 0;
  std::vector<bool> reach_;
};

// The per-link bytes of an evaluated plan: access links in rank order of their first
// rank (then NICs that only rail-local forwarding uses), then the switch-to-switch links
// (fluid: leaf uplinks by leaf, then spine-to-core links by spine, each once; hash: each
// cable once, in the order the flows first reach them); links that carry nothing are
// left out. Bytes per
// tier are the same in both modes; only their split over parallel links differs.
// Preconditions: `traffic` came from EvaluateTraffic over `slots` on the fabric of
// `index`, with tally_network.
std::vector<LinkLoad> LinkLoads(const LinkIndex& index, std::span<const RankSlot> slots,
                                const TrafficReport& traffic, const EcmpOptions& ecmp = {});

// Seconds one iteration of `loads` keeps its busiest cable direction busy at line rate
// (each of a link's Link::count cables at Link::speed_gbps; a fluid load spread evenly
// over them, a hashed one on its cable): the bottleneck by which the shared-link model
// (scheduler/sim/link_sharing.h) times a job's network part alone. 0 without loads.
// Precondition: every load's link is one of `fabric`'s.
double BusiestCableSeconds(const Fabric& fabric, std::span<const LinkLoad> loads);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_TRAFFIC_LINK_LOADS_H_
