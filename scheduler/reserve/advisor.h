// The dry runs, beside Reserve (reserver.h) and over the same ports: where a job would go
// now (Place), what it would first have to stop (Place with may_preempt), and which
// running jobs to move so that waiting ones fit (Defrag). Each reads the ledger's
// occupancy and live allocations and changes nothing; a change in between (another
// Reserve) makes the answer stale, as it would any dry run's.
//
//   Advisor advisor(ports);
//   TP_ASSIGN_OR_RETURN(PlacementPlan plan, advisor.Place(placement));
//   TP_ASSIGN_OR_RETURN(PreemptionAdvice p, advisor.PlaceWithPreemption(placement));
//
// Thread-safe when its ports are.
#ifndef TOPOPLACE_SCHEDULER_RESERVE_ADVISOR_H_
#define TOPOPLACE_SCHEDULER_RESERVE_ADVISOR_H_

#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/placement/defrag.h"
#include "scheduler/placement/preemption.h"
#include "scheduler/reserve/reserver.h"

namespace topoplace::sched {

struct PreemptionAdvice {
  PreemptionPlan preemption;
  std::vector<std::string> external_ids;  // per victim, as bound in the ledger ("" if none)
};

struct DefragAdvice {
  DefragPlan defrag;
  std::vector<std::string> external_ids;  // per move's running job ("" if none)
};

class Advisor {
 public:
  explicit Advisor(ReserverPorts ports) : ports_(std::move(ports)) {}

  // The plan Reserve would make now, with the same restart exclusions and uplink load,
  // and bytes per link for its report.
  absl::StatusOr<PlacementPlan> Place(PlacementRequest placement) const;
  // The cheapest set of lower-priority allocations to stop so the job fits within its
  // max_tier, and its plan then (scheduler/placement/preemption.h).
  absl::StatusOr<PreemptionAdvice> PlaceWithPreemption(PlacementRequest placement) const;
  // The moves of running allocations that let each of `waiting` fit
  // (scheduler/placement/defrag.h).
  absl::StatusOr<DefragAdvice> Defrag(std::span<const JobSpec> waiting,
                                      const DefragOptions& options) const;
  // `refusal` (of Place or Reserve for `placement`) with what would free room for it when
  // it is ResourceExhausted: the lower-priority allocations whose stop would (by external
  // id where bound, with their priorities, and the domain), else the moves of running
  // allocations that would (defragmentation), else that neither would now ("...; what
  // would free it: stopping k8s:default/g2 (priority 0), k8s:default/g3 (priority 0)
  // frees block 1"). Any other status is returned as it is. Changes nothing.
  absl::Status WithWhatWouldFree(const absl::Status& refusal,
                                 const PlacementRequest& placement) const;

 private:
  std::string ExternalIdOf(const std::string& allocation_id) const;

  ReserverPorts ports_;
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_RESERVE_ADVISOR_H_
