// The Reserve use case: place a job on the current occupancy and hold its GPUs in the
// ledger, at most once per idempotency key. Every adapter that reserves (the daemon's
// gRPC handler; through it the SPANK plugin, the extender and the CLI) goes through here,
// so the rules are stated once:
// - a replica that may not write says so before anything is placed;
// - a request_id seen before is answered with the allocation it made (a different job
//   spec or policy under the same key is ALREADY_EXISTS);
// - the job is placed with the uplink load known now and the restart exclusions, and
//   the plan (with its uplink offer, when live load is on) is stored with the allocation;
// - with `releasing` (a preemption's victims) the job is placed as if their GPUs were free
//   and the ledger releases them in the same change as it holds the job's, or not at all;
// - concurrent Reserves through one Reserver place one at a time, each around the GPUs
//   the others placed on and the ledger has not answered yet (so ties among free GPUs
//   do not send them all to the same one); only the ledger's write runs concurrently;
// - a Reserve elsewhere that takes a chosen GPU between placing and recording (ABORTED
//   from the ledger) makes the next attempt place on the fresher occupancy, kAttempts in
//   all; then the caller gets ABORTED and may retry later. Nobody else retries.
//
//   Reserver reserver(ports);
//   TP_ASSIGN_OR_RETURN(ReserveOutcome out, reserver.Reserve({placement, ttl, request_id}));
//
// Thread-safe when its ports are.
#ifndef TOPOPLACE_SCHEDULER_RESERVE_RESERVER_H_
#define TOPOPLACE_SCHEDULER_RESERVE_RESERVER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "scheduler/load/held_uplink_load.h"
#include "scheduler/placement/engine.h"
#include "scheduler/reserve/placement_port.h"
#include "store/ports/ledger.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

struct ReserveCommand {
  PlacementRequest placement;  // the parsed job (with any request hosts), policy, routing
  absl::Duration ttl;          // in (0, store::kMaxReservationTtl]
  std::string request_id;      // idempotency key; empty: none
  // Allocations to release in the same ledger change (a preemption's victims): placed as
  // if their GPUs were free, and released only if the reservation is made.
  std::vector<std::string> releasing = {};
};

struct ReserveOutcome {
  ledger::Allocation allocation;
  std::string plan_json;              // the plan as stored with the allocation
  std::optional<PlacementPlan> plan;  // the plan just made; empty when replayed
  bool replayed = false;
};

// What the use cases read and write through (Reserve here, the dry runs in advisor.h).
// `ledger`, `fabric` and `placement` are required; `live_load` may be null.
struct ReserverPorts {
  store::Ledger* ledger = nullptr;
  const Fabric* fabric = nullptr;  // the served fabric (plan JSON names its hosts)
  uint64_t fabric_version = 0;
  // The engine, the uplink load known now and restart exclusions (placement_port.h).
  const PlacementPort* placement = nullptr;
  // With live load on: plans are made with link loads and stored with their offer.
  const HeldUplinkLoad* live_load = nullptr;
};

// Hands `placement` what every use case places with: the uplink load known now and the
// restart exclusions (whose errors are the caller's).
absl::Status AddWhatPlacementReads(const ReserverPorts& ports, PlacementRequest& placement);

class Reserver {
 public:
  // Placements tried before answering ABORTED (see above).
  static constexpr int kAttempts = 5;

  explicit Reserver(ReserverPorts ports) : ports_(std::move(ports)) {}
  Reserver(const Reserver&) = delete;
  Reserver& operator=(const Reserver&) = delete;

  // Errors: the ledger's MayWrite (UNAVAILABLE on a follower), ALREADY_EXISTS for a
  // request_id used with another job spec or policy, the placement's (INVALID_ARGUMENT,
  // RESOURCE_EXHAUSTED), ABORTED after kAttempts lost races, the ledger's otherwise.
  absl::StatusOr<ReserveOutcome> Reserve(ReserveCommand command) const;

 private:
  // Places `placement` on the ledger's occupancy (with `releasing` free) and the GPUs
  // other Reserves claimed, then claims the plan's GPUs: one caller at a time.
  absl::StatusOr<PlacementPlan> PlaceAndClaim(const PlacementRequest& placement,
                                              const std::vector<std::string>& releasing) const
      ABSL_LOCKS_EXCLUDED(planning_);
  // Gives back what PlaceAndClaim claimed once the ledger has answered.
  void Unclaim(const PlacementPlan& plan) const ABSL_LOCKS_EXCLUDED(planning_);
  // The ledger's occupancy with the GPUs of the live allocations in `releasing` free.
  absl::StatusOr<Occupancy> OccupancyWithout(const std::vector<std::string>& releasing) const;
  // The allocation made earlier under `request.request_id`, if it was for the same job.
  absl::StatusOr<ReserveOutcome> Replay(const store::ReserveRequest& request) const;

  ReserverPorts ports_;
  mutable absl::Mutex planning_;
  // GPUs placed on by Reserves whose ledger write has not returned.
  mutable absl::flat_hash_set<GpuId> claimed_ ABSL_GUARDED_BY(planning_);
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_RESERVE_RESERVER_H_
