// The placement engine the services use, swappable at run time: telemetry rebuilds the
// engine with new link health (a PlacementEngine is immutable) and swaps it in; calls
// already placing keep the engine they started with.
//
//   EngineHolder holder(std::make_shared<const sched::PlacementEngine>(fabric));
//   holder.Place(request, occupancy);                       // on the current engine
//   holder.Swap(std::make_shared<const sched::PlacementEngine>(fabric, health));
//
// Thread-safe.
#ifndef TOPOPLACE_API_SERVER_ADAPTERS_ENGINE_HOLDER_H_
#define TOPOPLACE_API_SERVER_ADAPTERS_ENGINE_HOLDER_H_

#include <functional>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "scheduler/placement/engine.h"

namespace topoplace::server {

class EngineHolder {
 public:
  // Called after every Place with its duration and whether it succeeded (metrics).
  using PlaceObserver = std::function<void(absl::Duration, bool)>;

  // `engine` must not be null.
  explicit EngineHolder(std::shared_ptr<const sched::PlacementEngine> engine)
      : engine_(std::move(engine)) {}

  std::shared_ptr<const sched::PlacementEngine> Current() const;
  // `engine` must not be null and must serve the same fabric.
  void Swap(std::shared_ptr<const sched::PlacementEngine> engine);
  // Places on the current engine (see PlacementEngine::Place).
  absl::StatusOr<sched::PlacementPlan> Place(const sched::PlacementRequest& request,
                                             const sched::Occupancy& occupancy) const;
  // Set once before serving; not synchronised with Place.
  void set_place_observer(PlaceObserver observer) { observer_ = std::move(observer); }

 private:
  mutable absl::Mutex mu_;
  std::shared_ptr<const sched::PlacementEngine> engine_ ABSL_GUARDED_BY(mu_);
  PlaceObserver observer_;
};

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_ADAPTERS_ENGINE_HOLDER_H_
