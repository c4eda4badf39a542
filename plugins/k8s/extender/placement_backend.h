// What the gang planner needs from topoplaced: reserve a plan, bind it to a group, give it
// back, and find a group's committed plan again (after an extender restart). The real one
// talks gRPC (GrpcPlacementBackend); tests use an in-memory fake.
#ifndef TOPOPLACE_PLUGINS_K8S_EXTENDER_PLACEMENT_BACKEND_H_
#define TOPOPLACE_PLUGINS_K8S_EXTENDER_PLACEMENT_BACKEND_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace topoplace::k8s {

struct GroupPlan {
  std::string allocation_id;
  std::vector<std::string> hosts;  // fabric host names, one per node, in rank order
  // When the daemon reclaims the reservation; InfiniteFuture once committed.
  absl::Time expires = absl::InfiniteFuture();
};

// What a preemption would stop and where the job would then run (topoplaced's Place with
// may_preempt, a dry run: nothing is stopped or held).
struct PreemptionChoice {
  struct Victim {
    std::string allocation_id;
    std::string external_id;  // "k8s:<ns>/<group>" for groups of this extender
  };
  std::vector<std::string> hosts;  // the job's plan once the victims are gone, rank order
  std::vector<Victim> victims;     // empty when the job fits as things are
};

// Implementations are thread-safe.
class PlacementBackend {
 public:
  virtual ~PlacementBackend() = default;
  // Places `job_spec` and holds its GPUs for `ttl`; on `hosts` only when not empty (the
  // request's own field, so a long list never makes the spec too long), releasing the
  // allocations `releasing` in the same ledger change (a preemption's victims: released
  // only if the reservation is made); `run_seconds` > 0 is the job's expected run (the
  // request's outlook.run_seconds). Codes as the daemon's: INVALID_ARGUMENT bad spec,
  // RESOURCE_EXHAUSTED does not fit, ABORTED lost a race, UNAVAILABLE/DEADLINE_EXCEEDED
  // unreachable.
  virtual absl::StatusOr<GroupPlan> Reserve(const std::string& job_spec, absl::Duration ttl,
                                            const std::vector<std::string>& hosts,
                                            const std::vector<std::string>& releasing,
                                            double run_seconds) = 0;
  // Binds a reservation to `external_id`; idempotent. FAILED_PRECONDITION once expired.
  virtual absl::Status Commit(const std::string& allocation_id, const std::string& external_id) = 0;
  // Holds a reservation for `ttl` from now; returns the new expiry. FAILED_PRECONDITION
  // once it expired or was committed.
  virtual absl::StatusOr<absl::Time> Renew(const std::string& allocation_id,
                                           absl::Duration ttl) = 0;
  // Frees the allocation's GPUs; idempotent.
  virtual absl::Status Release(const std::string& allocation_id) = 0;
  // The cheapest set of lower-priority allocations whose release lets `job_spec` fit
  // inside its tier, and the plan after it. RESOURCE_EXHAUSTED when none would.
  virtual absl::StatusOr<PreemptionChoice> PlanPreemption(const std::string& job_spec) = 0;
  // The live committed allocation bound to `external_id`; NOT_FOUND if there is none.
  virtual absl::StatusOr<GroupPlan> FindCommitted(const std::string& external_id) = 0;
};

using PlacementBackendPtr = std::unique_ptr<PlacementBackend>;

}  // namespace topoplace::k8s

#endif  // TOPOPLACE_PLUGINS_K8S_EXTENDER_PLACEMENT_BACKEND_H_
