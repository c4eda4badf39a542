#include "api/server/services/daemon_placement_port.h"

#include "absl/time/clock.h"
#include "api/server/services/current_uplink_load.h"
#include "api/server/services/restart_exclusions.h"

namespace topoplace::server {

std::shared_ptr<const sched::PlacementEngine> DaemonPlacementPort::Engine() const {
  return context_.engine->Current();
}

absl::StatusOr<sched::PlacementPlan> DaemonPlacementPort::Place(
    const sched::PlacementRequest& request, const sched::Occupancy& occupancy) const {
  return context_.engine->Place(request, occupancy);
}

std::vector<double> DaemonPlacementPort::UplinkLoad() const {
  return CurrentUplinkLoad(context_, absl::Now());
}

absl::Status DaemonPlacementPort::ExcludeFailed(sched::JobSpec& job) const {
  return ExcludeWhatFailed(*context_.fabric, *context_.ledger, context_.health, job);
}

}  // namespace topoplace::server
