#include "scheduler/reserve/advisor.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "scheduler/load/running_jobs.h"

namespace topoplace::sched {

std::string Advisor::ExternalIdOf(const std::string& allocation_id) const {
  absl::StatusOr<ledger::Allocation> a = ports_.ledger->Get(allocation_id);
  return a.ok() ? a->external_id : "";
}

absl::StatusOr<PlacementPlan> Advisor::Place(PlacementRequest placement) const {
  placement.link_loads = true;  // the plan's report lists bytes per link
  TP_RETURN_IF_ERROR(AddWhatPlacementReads(ports_, placement));
  return ports_.placement->Place(placement, ports_.ledger->Occupancy());
}

absl::StatusOr<PreemptionAdvice> Advisor::PlaceWithPreemption(PlacementRequest placement) const {
  placement.link_loads = true;  // the plan's report lists bytes per link
  TP_RETURN_IF_ERROR(AddWhatPlacementReads(ports_, placement));
  store::Ledger& ledger = *ports_.ledger;
  const Occupancy occupancy = ledger.Occupancy();
  const std::vector<RunningJob> running = RunningJobs(*ports_.fabric, ledger);
  const std::shared_ptr<const PlacementEngine> engine = ports_.placement->Engine();
  PreemptionAdvice advice;
  TP_ASSIGN_OR_RETURN(advice.preemption, PlanPreemption(*engine, placement, occupancy, running));
  for (const Victim& v : advice.preemption.victims)
    advice.external_ids.push_back(ExternalIdOf(v.id));
  return advice;
}

absl::StatusOr<DefragAdvice> Advisor::Defrag(std::span<const JobSpec> waiting,
                                             const DefragOptions& options) const {
  store::Ledger& ledger = *ports_.ledger;
  const std::vector<MovableJob> running = MovableJobs(*ports_.fabric, ledger);
  const std::shared_ptr<const PlacementEngine> engine = ports_.placement->Engine();
  DefragAdvice advice;
  TP_ASSIGN_OR_RETURN(advice.defrag,
                      PlanDefrag(*engine, ledger.Occupancy(), running, waiting, options));
  for (const Move& m : advice.defrag.moves) advice.external_ids.push_back(ExternalIdOf(m.id));
  return advice;
}

absl::Status Advisor::WithWhatWouldFree(const absl::Status& refusal,
                                        const PlacementRequest& placement) const {
  if (!absl::IsResourceExhausted(refusal)) return refusal;
  auto name = [](const std::string& external_id, const std::string& id) {
    return external_id.empty() ? id : external_id;
  };
  std::string freeing;
  if (absl::StatusOr<PreemptionAdvice> p = PlaceWithPreemption(placement);
      p.ok() && !p->preemption.victims.empty()) {
    std::vector<std::string> victims;
    for (size_t i = 0; i < p->preemption.victims.size(); ++i) {
      const Victim& v = p->preemption.victims[i];
      victims.push_back(
          absl::StrCat(name(p->external_ids[i], v.id), " (priority ", v.priority, ")"));
    }
    freeing =
        absl::StrCat("stopping ", absl::StrJoin(victims, ", "), " frees ", p->preemption.domain);
  } else if (absl::StatusOr<DefragAdvice> d = Defrag({&placement.job, 1}, DefragOptions{});
             d.ok() && !d->defrag.moves.empty()) {
    std::vector<std::string> moves;
    for (size_t i = 0; i < d->defrag.moves.size(); ++i) {
      const Move& m = d->defrag.moves[i];
      moves.push_back(absl::StrCat(name(d->external_ids[i], m.id), " (", m.gpus, " GPUs)"));
    }
    freeing = absl::StrCat("moving ", absl::StrJoin(moves, ", "), " frees ",
                           d->defrag.moves.front().domain);
  } else {
    freeing = "no allocation of lower priority to stop and no move of a running one frees room now";
  }
  return absl::ResourceExhaustedError(
      absl::StrCat(refusal.message(), "; what would free it: ", freeing));
}

}  // namespace topoplace::sched
