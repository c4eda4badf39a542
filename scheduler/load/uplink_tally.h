// How busy each switch's uplinks are with the jobs that run: each job offers, on the
// uplinks of every switch its plan climbs from, its bytes up per iteration over its
// reference step time (CommModel); a switch's busy share is what all jobs offer over its
// uplink capacity. The simulator's --load-aware mode and the daemon's load derived from
// live allocations both hand these shares to the engine (PlacementRequest::uplink_busy).
//
// Not thread-safe.
#ifndef TOPOPLACE_SCHEDULER_LOAD_UPLINK_TALLY_H_
#define TOPOPLACE_SCHEDULER_LOAD_UPLINK_TALLY_H_

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "scheduler/ledger/allocation.h"
#include "scheduler/traffic/link_loads.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

class UplinkTally {
 public:
  // Bytes per second one job offers per switch (each switch at most once).
  using Offer = std::vector<std::pair<SwitchId, double>>;

  // `fabric` must outlive the tally.
  explicit UplinkTally(const Fabric& fabric);

  // The offer of a plan whose links carry `links` bytes per iteration and whose iteration
  // takes `step_s` seconds; empty when step_s <= 0.
  Offer OfferOf(std::span<const LinkLoad> links, double step_s) const;

  // Adds or takes away a job's offer (taking away never leaves a share below 0).
  void Add(const Offer& offer) { Apply(offer, +1); }
  void Remove(const Offer& offer) { Apply(offer, -1); }

  // Per switch id: offered bytes/s over uplink capacity (0 for switches without uplinks;
  // above 1 when more is offered than fits).
  const std::vector<double>& busy() const { return busy_; }

 private:
  void Apply(const Offer& offer, int sign);

  std::vector<SwitchId> lower_;   // per link: the switch it leads up from, or -1
  std::vector<double> capacity_;  // per switch: uplink bytes per second
  std::vector<double> offered_;   // per switch: offered bytes per second
  std::vector<double> busy_;
};

// The offer an allocation keeps (ledger::Allocation::uplink_offer) for `offer`, switches by
// name, and back, switches looked up in `fabric` (unknown ones and rates <= 0 skipped).
std::vector<ledger::UplinkOffer> NamedUplinkOffer(const UplinkTally::Offer& offer,
                                                  const Fabric& fabric);
UplinkTally::Offer UplinkOfferOf(const std::vector<ledger::UplinkOffer>& named,
                                 const Fabric& fabric);

// The offer the daemon used to splice into a reservation's plan JSON as "uplink_offer",
// before allocations kept it in a field of their own (etcd records of that time still
// hold it there); empty when the plan has none.
UplinkTally::Offer LegacyUplinkOffer(const std::string& plan_json, const Fabric& fabric);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_LOAD_UPLINK_TALLY_H_
