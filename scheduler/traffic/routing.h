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
#include "topology/model/fabric.h"

namespace topoplace::sched {

struct RoutingOptions {
  bool rail_local = false;  // PXN: cross-rail traffic hops over NVLink first
};

// Immutable; holds a reference to the fabric, which must outlive it.
class Router {
 public:
  Router(const Fabric& fabric, RoutingOptions options) : fabric_(fabric), options_(options) {}

  // The NIC whose network path carries a -> b traffic (a's own NIC, or with rail-local
  // forwarding a's NIC on b's rail when a has one). -1 for a NIC-less host.
  NicId SendingNic(const RankSlot& a, const RankSlot& b) const;
  // The highest tier between the two slots: kNvlink inside one NVLink domain, otherwise
  // the tier between the sending NIC and b's NIC.
  Tier Classify(const RankSlot& a, const RankSlot& b) const;
  const RoutingOptions& options() const { return options_; }

 private:
  const Fabric& fabric_;
  RoutingOptions options_;
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_TRAFFIC_ROUTING_H_
