#include "scheduler/reserve/advisor.h"

#include <utility>

#include "scheduler/load/running_jobs.h"
#include "topology/base/status_macros.h"

namespace topoplace::sched {

std::string Advisor::ExternalIdOf(const std::string& allocation_id) const {
  absl::StatusOr<ledger::Allocation> a = ports_.ledger->Get(allocation_id);
  return a.ok() ? a->external_id : "";
}

absl::StatusOr<PlacementPlan> Advisor::Place(PlacementRequest placement) const {
  placement.link_loads = true;  // the plan's report lists bytes per link
  TP_RETURN_IF_ERROR(AddWhatPlacementReads(ports_, placement));
  return ports_.place(placement, ports_.ledger->Occupancy());
}

absl::StatusOr<PreemptionAdvice> Advisor::PlaceWithPreemption(PlacementRequest placement) const {
  placement.link_loads = true;  // the plan's report lists bytes per link
  TP_RETURN_IF_ERROR(AddWhatPlacementReads(ports_, placement));
  ledger::Ledger& ledger = *ports_.ledger;
  const Occupancy occupancy = ledger.Occupancy();
  const std::vector<RunningJob> running = RunningJobs(*ports_.fabric, ledger);
  const std::shared_ptr<const PlacementEngine> engine = ports_.engine();
  PreemptionAdvice advice;
  TP_ASSIGN_OR_RETURN(advice.preemption, PlanPreemption(*engine, placement, occupancy, running));
  for (const Victim& v : advice.preemption.victims)
    advice.external_ids.push_back(ExternalIdOf(v.id));
  return advice;
}

absl::StatusOr<DefragAdvice> Advisor::Defrag(std::span<const JobSpec> waiting,
                                             const DefragOptions& options) const {
  ledger::Ledger& ledger = *ports_.ledger;
  const std::vector<MovableJob> running = MovableJobs(*ports_.fabric, ledger);
  const std::shared_ptr<const PlacementEngine> engine = ports_.engine();
  DefragAdvice advice;
  TP_ASSIGN_OR_RETURN(advice.defrag,
                      PlanDefrag(*engine, ledger.Occupancy(), running, waiting, options));
  for (const Move& m : advice.defrag.moves) advice.external_ids.push_back(ExternalIdOf(m.id));
  return advice;
}

}  // namespace topoplace::sched
