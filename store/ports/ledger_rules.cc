#include "store/ports/ledger_rules.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace topoplace::store {

absl::Status CheckTtl(absl::Duration ttl) {
  if (ttl > absl::ZeroDuration() && ttl <= kMaxReservationTtl) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("ttl: expected a duration in (0, ",
                                                 absl::FormatDuration(kMaxReservationTtl),
                                                 "], got ", absl::FormatDuration(ttl)));
}

absl::StatusOr<int64_t> AllocationNumber(const std::string& id) {
  std::optional<int64_t> n = ledger::ParseAllocationId(id);
  if (!n) return absl::NotFoundError(absl::StrCat("allocation_id: unknown allocation '", id, "'"));
  return *n;
}

absl::Status UnknownAllocation(int64_t n) {
  return absl::NotFoundError(
      absl::StrCat("allocation_id: unknown allocation '", ledger::FormatAllocationId(n), "'"));
}

absl::StatusOr<ledger::Allocation> NewReservation(const Fabric& fabric,
                                                  const ReserveRequest& request, absl::Time now) {
  if (absl::Status ttl = CheckTtl(request.ttl); !ttl.ok()) return ttl;
  if (request.gpus.empty()) return absl::InvalidArgumentError("gpus: expected at least one GPU");
  absl::flat_hash_set<GpuId> seen;
  for (GpuId g : request.gpus) {
    if (g < 0 || g >= static_cast<GpuId>(fabric.gpus().size())) {
      return absl::InvalidArgumentError(absl::StrCat("gpus: unknown GPU id ", g));
    }
    if (!seen.insert(g).second) {
      return absl::InvalidArgumentError(absl::StrCat("gpus: ", fabric.GpuName(g), " listed twice"));
    }
  }
  ledger::Allocation a;
  a.state = ledger::AllocationState::kReserved;
  a.job_spec = request.job_spec;
  a.policy = request.policy;
  a.fabric_version = request.fabric_version;
  a.plan_json = request.plan_json;
  a.uplink_offer = request.uplink_offer;
  a.request_id = request.request_id;
  a.created_at = now;
  a.expires_at = now + request.ttl;
  if (request.expected_run < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("expected_run: expected a duration >= 0");
  }
  if (request.expected_run > absl::ZeroDuration()) a.expected_end = now + request.expected_run;
  for (GpuId g : request.gpus) {
    const Gpu& gpu = fabric.gpus()[g];
    a.gpus.push_back({fabric.hosts()[gpu.host].name, gpu.index});
  }
  return a;
}

absl::StatusOr<std::vector<int64_t>> LiveReleasing(const ledger::LiveAllocations& live,
                                                   const ReserveRequest& request) {
  if (request.releasing.size() > kMaxReleasing) {
    return absl::InvalidArgumentError(absl::StrCat("releasing: at most ", kMaxReleasing,
                                                   " allocations in one change, got ",
                                                   request.releasing.size()));
  }
  std::vector<int64_t> numbers;
  for (const std::string& id : request.releasing) {
    absl::StatusOr<int64_t> n = AllocationNumber(id);
    if (!n.ok())
      return absl::InvalidArgumentError(absl::StrCat("releasing: ", n.status().message()));
    if (live.Find(*n) != nullptr &&
        std::find(numbers.begin(), numbers.end(), *n) == numbers.end()) {
      numbers.push_back(*n);
    }
  }
  return numbers;
}

absl::Status CheckFree(const Fabric& fabric, const ledger::LiveAllocations& live,
                       const ReserveRequest& request, const std::vector<int64_t>& releasing) {
  for (GpuId g : request.gpus) {
    const int64_t holder = live.Holder(g);
    if (holder != 0 && std::find(releasing.begin(), releasing.end(), holder) == releasing.end()) {
      return absl::AbortedError(absl::StrCat("GPU ", fabric.GpuName(g), " is already held by ",
                                             ledger::FormatAllocationId(live.Holder(g)),
                                             "; place again and retry"));
    }
  }
  return absl::OkStatus();
}

absl::Status RequestIdUsed(const std::string& request_id, int64_t by) {
  return absl::AlreadyExistsError(absl::StrCat(
      "request_id: '", request_id, "' was already used by ", ledger::FormatAllocationId(by)));
}

absl::Status CheckExternalId(const std::string& external_id) {
  if (!external_id.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError("external_id: expected a Slurm job id or pod group");
}

absl::StatusOr<bool> CheckCommit(const ledger::Allocation& a, const std::string& external_id,
                                 const ledger::LiveAllocations& live) {
  if (absl::Status s = CheckExternalId(external_id); !s.ok()) return s;
  if (a.state == ledger::AllocationState::kCommitted) {
    if (a.external_id == external_id) return true;
    return absl::FailedPreconditionError(
        absl::StrCat(a.id, " is already committed to '", a.external_id, "'"));
  }
  if (std::optional<int64_t> other = live.CommittedTo(external_id)) {
    return absl::AlreadyExistsError(absl::StrCat("external_id: '", external_id,
                                                 "' is already bound to ",
                                                 ledger::FormatAllocationId(*other)));
  }
  return false;
}

absl::Status CheckRenewable(const ledger::Allocation& a) {
  if (a.state == ledger::AllocationState::kReserved) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat(a.id, " is committed to '", a.external_id, "'; commits do not expire"));
}

absl::Status Finished(const ledger::Allocation& a) {
  return absl::FailedPreconditionError(
      absl::StrCat(a.id, " is ", AllocationStateName(a.state), "; reserve again"));
}

ledger::Allocation AsOf(const ledger::Allocation& a, absl::Time now) {
  if (a.state != ledger::AllocationState::kReserved || a.expires_at > now) return a;
  return FinishedAs(a, ledger::AllocationState::kExpired, a.expires_at);
}

ledger::Allocation FinishedAs(ledger::Allocation a, ledger::AllocationState state, absl::Time now) {
  a.state = state;
  a.finished_at = now;
  return a;
}

}  // namespace topoplace::store
