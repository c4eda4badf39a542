// Classifies a communicating GPU pair by the highest tier its path climbs, on the fabric's
// precomputed coordinates (O(1) per pair).
//
// Rail-local forwarding (NCCL's PXN): when enabled, a GPU that sends to a GPU on another
// rail first moves the data over NVLink to the local GPU on the destination's rail, so the
// network path is rail-to-rail and, inside a block, stays on one leaf. Without it the
// sender's own NIC is used and cross-rail traffic climbs to the spine (or has no path at
// all on rail-plane fabrics such as rail-28k).
#ifndef TOPOPLACE_SCHEDULER_TRAFFIC_ROUTING_H_
#define TOPOPLACE_SCHEDULER_TRAFFIC_ROUTING_H_

#include "scheduler/mapping/rank_map.h"
#include "scheduler/traffic/tier_index.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

struct RoutingOptions {
  bool rail_local = false;  // PXN: cross-rail traffic hops over NVLink first
};

// Immutable; holds a reference to the index (and its fabric), which must outlive it.
class Router {
 public:
  Router(const TierIndex& index, RoutingOptions options)
      : fabric_(index.fabric()), index_(index), options_(options) {}

  // The NIC whose network path carries a -> b traffic (a's own NIC, or with rail-local
  // forwarding a's NIC on b's rail when a has one). -1 for a NIC-less host.
  NicId SendingNic(const RankSlot& a, const RankSlot& b) const {
    return options_.rail_local ? RailLocalNic(a, b) : a.nic;
  }
  // The highest tier between the two slots: kNvlink inside one NVLink domain, otherwise
  // the tier between the sending NIC and b's NIC. Inline: it runs once per pair.
  Tier Classify(const RankSlot& a, const RankSlot& b) const {
    if (a.host == b.host) return Tier::kNvlink;
    const int32_t domain = index_.host_nvlink(a.host);
    if (domain >= 0 && domain == index_.host_nvlink(b.host)) return Tier::kNvlink;
    const NicId from = SendingNic(a, b);
    if (from < 0 || b.nic < 0) return Tier::kUnreachable;
    return index_.NicTier(from, b.nic);
  }
  const RoutingOptions& options() const { return options_; }
  const Fabric& fabric() const { return fabric_; }
  const TierIndex& index() const { return index_; }

 private:
  NicId RailLocalNic(const RankSlot& a, const RankSlot& b) const;

  const Fabric& fabric_;
  const TierIndex& index_;
  RoutingOptions options_;
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_TRAFFIC_ROUTING_H_
