#include "api/server/adapters/engine_holder.h"

namespace topoplace::server {

std::shared_ptr<const sched::PlacementEngine> EngineHolder::Current() const {
  absl::MutexLock lock(&mu_);
  return engine_;
}

void EngineHolder::Swap(std::shared_ptr<const sched::PlacementEngine> engine) {
  absl::MutexLock lock(&mu_);
  engine_ = std::move(engine);
}

absl::StatusOr<sched::PlacementPlan> EngineHolder::Place(const sched::PlacementRequest& request,
                                                         const sched::Occupancy& occupancy) const {
  const std::shared_ptr<const sched::PlacementEngine> engine = Current();
  const absl::Time start = absl::Now();
  absl::StatusOr<sched::PlacementPlan> plan = engine->Place(request, occupancy);
  if (observer_) observer_(absl::Now() - start, plan.ok());
  return plan;
}

}  // namespace topoplace::server
