// The uplink load of the jobs a ledger holds GPUs for (topoplaced's, or a copy of its
// database for `topoplace place --ledger`), from their own plans: each live allocation
// offers its plan's bytes up per iteration over its reference step time
// (UplinkTally, the simulator's --load-aware model), and Place and Reserve hand the
// switches' busy shares to the engine, whose uplink-load scorer steers a new job off the
// uplinks running jobs already fill. No telemetry is needed; with an uplink load file as
// well, each switch takes the larger of the two (measured rates already include the jobs).
//
// A reservation's offer is kept with its allocation (Allocation::uplink_offer), so a
// restarted daemon or a follower counts the jobs it already holds; an allocation without
// one (made without this option) counts as offering nothing.
//
// Thread-safe.
#ifndef TOPOPLACE_SCHEDULER_LOAD_HELD_UPLINK_LOAD_H_
#define TOPOPLACE_SCHEDULER_LOAD_HELD_UPLINK_LOAD_H_

#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/load/uplink_tally.h"
#include "scheduler/placement/plan.h"
#include "scheduler/steptime/comm_model.h"
#include "store/ports/ledger.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

class HeldUplinkLoad {
 public:
  // `fabric` must outlive the load.
  explicit HeldUplinkLoad(const Fabric& fabric);

  // What `plan` offers each switch's uplinks, to keep with its allocation
  // (ReserveRequest::uplink_offer). Precondition: `plan` was placed with link loads.
  std::vector<ledger::UplinkOffer> OfferOf(const PlacementPlan& plan) const;

  // The busy shares per switch id of the allocations `ledger` holds now.
  std::vector<double> Current(store::Ledger& ledger) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  const Fabric& fabric_;
  const CommModel model_;
  const UplinkTally shape_;  // only its link-to-switch tables: OfferOf
  absl::Mutex mu_;
  UplinkTally tally_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, UplinkTally::Offer> counted_ ABSL_GUARDED_BY(mu_);
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_LOAD_HELD_UPLINK_LOAD_H_
