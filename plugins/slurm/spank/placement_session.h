// The plugin's calls to topoplaced, each bounded by the configured timeout, so no Slurm
// command or daemon waits longer than that for the service. A Reserve that loses a race
// for its GPUs is retried by the daemon (scheduler/reserve/reserver.h), not here.
//
//   TP_ASSIGN_OR_RETURN(auto session, PlacementSession::Open(config));
//   TP_ASSIGN_OR_RETURN(Reservation r, session->Reserve("tp=8,dp=4"));
//   TP_RETURN_IF_ERROR(session->Commit(r.plan_id, 42));
//
// Not thread-safe (the plugin runs it from one thread at a time).
#ifndef TOPOPLACE_PLUGINS_SLURM_SPANK_PLACEMENT_SESSION_H_
#define TOPOPLACE_PLUGINS_SLURM_SPANK_PLACEMENT_SESSION_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "client/topoplace_client.h"
#include "plugins/slurm/spank/job_binding.h"
#include "plugins/slurm/spank/plan_view.h"
#include "plugins/slurm/spank/spank_config.h"

namespace topoplace::slurm {

struct Reservation {
  std::string plan_id;  // the allocation id
  PlanView plan;
};

class PlacementSession {
 public:
  // Reads the token file and makes the (lazy) channel. NotFound if a named file cannot be
  // read. Makes no call yet.
  static absl::StatusOr<std::unique_ptr<PlacementSession>> Open(const SpankConfig& config);

  // Places `job_spec` and holds its GPUs for the configured TTL. Codes as the daemon's
  // (INVALID_ARGUMENT bad spec, RESOURCE_EXHAUSTED does not fit, UNAVAILABLE or
  // DEADLINE_EXCEEDED unreachable).
  // A non-empty `request_id` is the idempotency key: asked again with it, the daemon
  // answers with the first allocation (whatever its state) instead of placing anew.
  // Non-empty `hosts`: the only hosts it may use (the request's hosts field).
  absl::StatusOr<Reservation> Reserve(const std::string& job_spec,
                                      const std::string& request_id = "",
                                      const std::vector<std::string>& hosts = {});
  // Binds the reservation to Slurm job `job_id` (external id "slurm:<job_id>"); idempotent.
  absl::Status Commit(const std::string& plan_id, uint32_t job_id);
  // Frees the allocation's GPUs; idempotent.
  absl::Status Release(const std::string& plan_id);
  // Whose an allocation is (job_binding.h), as the daemon has it.
  absl::StatusOr<AllocationOwner> Owner(const std::string& plan_id);
  // The plan an allocation was placed with.
  absl::StatusOr<PlanView> FetchPlan(const std::string& plan_id);

 private:
  PlacementSession(SpankConfig config, std::unique_ptr<client::TopoplaceClient> client)
      : config_(std::move(config)), client_(std::move(client)) {}

  SpankConfig config_;
  std::unique_ptr<client::TopoplaceClient> client_;
};

// The Slurm external id of a job: "slurm:<job_id>".
std::string SlurmExternalId(uint32_t job_id);

}  // namespace topoplace::slurm

#endif  // TOPOPLACE_PLUGINS_SLURM_SPANK_PLACEMENT_SESSION_H_
