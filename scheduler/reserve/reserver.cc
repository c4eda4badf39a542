#include "scheduler/reserve/reserver.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/report/plan_report.h"

namespace topoplace::sched {

absl::Status AddWhatPlacementReads(const ReserverPorts& ports, PlacementRequest& placement) {
  placement.uplink_busy = ports.placement->UplinkLoad();
  TP_RETURN_IF_ERROR(ports.placement->ExcludeFailed(placement.job));
  return absl::OkStatus();
}

absl::StatusOr<ReserveOutcome> Reserver::Reserve(ReserveCommand command) const {
  store::Ledger& ledger = *ports_.ledger;
  TP_RETURN_IF_ERROR(ledger.MayWrite());
  PlacementRequest& placement = command.placement;
  store::ReserveRequest reserve;
  // The job as the client sent it: restart exclusions below are not recorded, so that a
  // retried Reserve still replays.
  reserve.job_spec = FormatJobSpec(placement.job);
  reserve.policy = placement.policy;
  reserve.fabric_version = ports_.fabric_version;
  reserve.ttl = command.ttl;
  reserve.request_id = std::move(command.request_id);
  reserve.releasing = std::move(command.releasing);
  reserve.expected_run = absl::Seconds(placement.outlook.run_s);
  if (!reserve.request_id.empty()) {
    absl::StatusOr<ledger::Allocation> earlier = ledger.FindByRequestId(reserve.request_id);
    if (earlier.ok()) return Replay(reserve);
    // Not knowing whether the key was used (the store cannot be read) must not hold twice.
    if (!absl::IsNotFound(earlier.status())) return earlier.status();
  }
  if (ports_.live_load != nullptr) placement.link_loads = true;  // for the stored offer
  TP_RETURN_IF_ERROR(AddWhatPlacementReads(ports_, placement));
  absl::Status last;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    TP_ASSIGN_OR_RETURN(PlacementPlan plan, PlaceAndClaim(placement, reserve.releasing));
    reserve.gpus.clear();
    for (const RankSlot& slot : plan.ranks) reserve.gpus.push_back(slot.gpu);
    reserve.plan_json = PlanToJson(*ports_.fabric, plan);
    if (ports_.live_load != nullptr) {
      reserve.uplink_offer = ports_.live_load->OfferOf(plan);
    }
    absl::StatusOr<ledger::Allocation> allocation = ledger.Reserve(reserve);
    Unclaim(plan);
    if (allocation.ok()) {
      return ReserveOutcome{*std::move(allocation), std::move(reserve.plan_json), std::move(plan),
                            /*replayed=*/false};
    }
    last = allocation.status();
    // A concurrent Reserve with the same request_id won the race: answer as its replay.
    if (absl::IsAlreadyExists(last)) return Replay(reserve);
    if (!absl::IsAborted(last)) return last;
  }
  return last;
}

absl::StatusOr<PlacementPlan> Reserver::PlaceAndClaim(
    const PlacementRequest& placement, const std::vector<std::string>& releasing) const {
  absl::MutexLock lock(&planning_);
  TP_ASSIGN_OR_RETURN(Occupancy occupancy, OccupancyWithout(releasing));
  for (GpuId gpu : claimed_) occupancy.Set(gpu, true);
  TP_ASSIGN_OR_RETURN(PlacementPlan plan, ports_.placement->Place(placement, occupancy));
  for (const RankSlot& slot : plan.ranks) claimed_.insert(slot.gpu);
  return plan;
}

void Reserver::Unclaim(const PlacementPlan& plan) const {
  absl::MutexLock lock(&planning_);
  for (const RankSlot& slot : plan.ranks) claimed_.erase(slot.gpu);
}

absl::StatusOr<Occupancy> Reserver::OccupancyWithout(
    const std::vector<std::string>& releasing) const {
  Occupancy occupancy = ports_.ledger->Occupancy();
  for (const std::string& id : releasing) {
    absl::StatusOr<ledger::Allocation> victim = ports_.ledger->Get(id);
    if (absl::IsNotFound(victim.status())) continue;  // the ledger says which ids are bad
    TP_RETURN_IF_ERROR(victim.status());
    if (victim->state != ledger::AllocationState::kReserved &&
        victim->state != ledger::AllocationState::kCommitted) {
      continue;  // finished meanwhile: its GPUs are free already
    }
    for (const ledger::GpuRef& ref : victim->gpus) {
      if (std::optional<GpuId> gpu = ports_.fabric->FindGpu(ref.host, ref.index)) {
        occupancy.Set(*gpu, false);
      }
    }
  }
  return occupancy;
}

absl::StatusOr<ReserveOutcome> Reserver::Replay(const store::ReserveRequest& request) const {
  TP_ASSIGN_OR_RETURN(ledger::Allocation first, ports_.ledger->FindByRequestId(request.request_id));
  if (first.job_spec != request.job_spec || first.policy != request.policy) {
    return absl::AlreadyExistsError(absl::StrCat(
        "request_id: '", request.request_id, "' was used by ", first.id, " for job_spec '",
        first.job_spec, "' and policy '", first.policy, "'; use a new request_id"));
  }
  std::string plan_json = first.plan_json;
  return ReserveOutcome{std::move(first), std::move(plan_json), std::nullopt, /*replayed=*/true};
}

}  // namespace topoplace::sched
