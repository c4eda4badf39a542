// One entry of the allocation ledger: which GPUs a job holds, in which state, until when.
// Life cycle: reserved (with an expiry) -> committed (bound to an external id, no expiry)
// -> released; a reservation not committed in time becomes expired. Only reserved and
// committed allocations hold GPUs.
#ifndef TOPOPLACE_SCHEDULER_LEDGER_ALLOCATION_H_
#define TOPOPLACE_SCHEDULER_LEDGER_ALLOCATION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "topology/model/fabric.h"

namespace topoplace::ledger {

enum class AllocationState { kReserved, kCommitted, kReleased, kExpired };

// "reserved", "committed", "released", "expired" (also the values stored in SQLite).
absl::string_view AllocationStateName(AllocationState state);
std::optional<AllocationState> ParseAllocationState(absl::string_view name);

// A GPU by name, stable across fabric snapshots.
struct GpuRef {
  std::string host;
  int32_t index = 0;  // local GPU index on the host
  friend bool operator==(const GpuRef&, const GpuRef&) = default;
};

// What a job offers the uplinks of one switch its plan climbs from, in bytes per second
// (its bytes up per iteration over its reference step time): what the daemon's uplink
// load from allocations counts (scheduler/load/held_uplink_load.h).
struct UplinkOffer {
  std::string switch_name;
  double bytes_per_second = 0;
  friend bool operator==(const UplinkOffer&, const UplinkOffer&) = default;
};

struct Allocation {
  std::string id;  // "alloc-<n>", assigned by the ledger
  AllocationState state = AllocationState::kReserved;
  std::string external_id;  // Slurm job id or pod group; empty until committed
  std::string job_spec;     // canonical job spec string
  std::string policy;
  uint64_t fabric_version = 0;
  std::vector<GpuRef> gpus;
  std::string plan_json;  // the plan as placed (schema topoplace.plan/v1), for explain
  // Empty when placed without uplink load (or, in etcd records written before the offer
  // had a field of its own, still inside plan_json).
  std::vector<UplinkOffer> uplink_offer;
  std::string request_id;  // the client's idempotency key for Reserve; may be empty
  absl::Time created_at;
  absl::Time expires_at = absl::InfiniteFuture();   // reserved only
  absl::Time finished_at = absl::InfiniteFuture();  // released or expired only
  // When the job is expected to end: created_at plus the run the Reserve was told of
  // (QueueOutlook.run_seconds: a Slurm time limit, a pod's activeDeadlineSeconds);
  // InfiniteFuture when it was not told. What the daemon's outlook says of the host.
  absl::Time expected_end = absl::InfiniteFuture();

  bool holds_gpus() const {
    return state == AllocationState::kReserved || state == AllocationState::kCommitted;
  }
};

// "alloc-42" <-> 42. ParseAllocationId returns nullopt for anything else.
std::string FormatAllocationId(int64_t n);
std::optional<int64_t> ParseAllocationId(absl::string_view id);

}  // namespace topoplace::ledger

#endif  // TOPOPLACE_SCHEDULER_LEDGER_ALLOCATION_H_
