// The daemon's side of the use cases' placement port (scheduler/reserve/placement_port.h):
// the engine current now (EngineHolder, swapped as link health changes), the uplink load
// the configured sources know now (current_uplink_load.h) and the restart exclusions from
// link health (restart_exclusions.h).
//
//   DaemonPlacementPort port(context);   // context outlives port
//
// Thread-safe.
#ifndef TOPOPLACE_API_SERVER_SERVICES_DAEMON_PLACEMENT_PORT_H_
#define TOPOPLACE_API_SERVER_SERVICES_DAEMON_PLACEMENT_PORT_H_

#include <memory>
#include <vector>

#include "api/server/services/service_context.h"
#include "scheduler/reserve/placement_port.h"

namespace topoplace::server {

class DaemonPlacementPort final : public sched::PlacementPort {
 public:
  explicit DaemonPlacementPort(const ServiceContext& context) : context_(context) {}

  std::shared_ptr<const sched::PlacementEngine> Engine() const override;
  absl::StatusOr<sched::PlacementPlan> Place(const sched::PlacementRequest& request,
                                             const sched::Occupancy& occupancy) const override;
  std::vector<double> UplinkLoad() const override;
  absl::Status ExcludeFailed(sched::JobSpec& job) const override;

 private:
  const ServiceContext& context_;
};

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_SERVICES_DAEMON_PLACEMENT_PORT_H_
