// What the use cases (the Reserver, the Advisor) place with, as one typed port: the engine
// current now, and what every placement reads besides the job (the uplink load known now,
// the hosts a restarted job must stay away from). The daemon's port is
// api/server/services/daemon_placement_port.h (engines swapped as link health changes);
// FixedPlacementPort below serves one engine (the CLI's dry runs).
//
//   FixedPlacementPort port(engine, uplink_busy);
//   ReserverPorts ports{.ledger = ledger, .fabric = fabric, .placement = &port};
//
// Implementations are thread-safe: the use cases call them from many threads.
#ifndef TOPOPLACE_SCHEDULER_RESERVE_PLACEMENT_PORT_H_
#define TOPOPLACE_SCHEDULER_RESERVE_PLACEMENT_PORT_H_

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/placement/engine.h"

namespace topoplace::sched {

class PlacementPort {
 public:
  virtual ~PlacementPort() = default;

  // The engine current now, never null: for searches that place many times (preemption,
  // defrag) on one engine.
  virtual std::shared_ptr<const PlacementEngine> Engine() const = 0;
  // Places `request` on `occupancy` with the engine current now.
  virtual absl::StatusOr<PlacementPlan> Place(const PlacementRequest& request,
                                              const Occupancy& occupancy) const = 0;
  // The uplink busy shares known now, per switch id (empty: none known).
  virtual std::vector<double> UplinkLoad() const = 0;
  // Adds to `job`'s exclude list what a restart must stay away from (replace_on_restart);
  // its errors are the use case's.
  virtual absl::Status ExcludeFailed(JobSpec& job) const = 0;
};

// One engine, a fixed uplink load and no restart exclusions.
class FixedPlacementPort : public PlacementPort {
 public:
  explicit FixedPlacementPort(std::shared_ptr<const PlacementEngine> engine,
                              std::vector<double> uplink_busy = {})
      : engine_(std::move(engine)), uplink_busy_(std::move(uplink_busy)) {}

  std::shared_ptr<const PlacementEngine> Engine() const override { return engine_; }
  absl::StatusOr<PlacementPlan> Place(const PlacementRequest& request,
                                      const Occupancy& occupancy) const override {
    return engine_->Place(request, occupancy);
  }
  std::vector<double> UplinkLoad() const override { return uplink_busy_; }
  absl::Status ExcludeFailed(JobSpec&) const override { return absl::OkStatus(); }

 private:
  std::shared_ptr<const PlacementEngine> engine_;
  std::vector<double> uplink_busy_;
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_RESERVE_PLACEMENT_PORT_H_
