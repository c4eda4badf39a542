#include "scheduler/steptime/step_predictor.h"

#include <utility>

namespace topoplace::sched {

StepPredictor::StepPredictor(std::shared_ptr<const TierIndex> tiers,
                             const CommModelOptions& options)
    : tiers_(std::move(tiers)),
      comm_(CommModel::ForFabric(tiers_->fabric(), options)),
      rail_local_(*tiers_, comm_, /*rail_local=*/true),
      sender_nic_(*tiers_, comm_, /*rail_local=*/false) {}

StepPrediction StepPredictor::Predict(const JobSpec& job, const TrafficReport& traffic,
                                      bool rail_local) const {
  StepPrediction p;
  p.step_s = comm_.StepSeconds(job, traffic);
  {
    absl::MutexLock lock(&mu_);
    p.reference_s = (rail_local ? rail_local_ : sender_nic_).StepSeconds(job, traffic);
  }
  if (p.reference_s > 0 && p.step_s > p.reference_s) p.slowdown = p.step_s / p.reference_s;
  return p;
}

}  // namespace topoplace::sched
