// A plan's predicted step time and slowdown: the comm-time model's seconds per iteration
// on the plan's traffic (each tier at its bandwidth alone) over the reference step on the
// empty fabric's compact hosts (reference_step.h). The engine fills every plan's
// prediction with it, so `place`, the daemon's Place and `explain`, the console's job page
// and the simulator show one number, computed one way.
//
//   StepPredictor steps(tiers, {});            // the fabric's GPU model
//   StepPrediction p = steps.Predict(plan.job, plan.traffic, plan.routing.rail_local);
//
// Thread-safe: the reference steps are cached per job spec under a lock.
#ifndef TOPOPLACE_SCHEDULER_STEPTIME_STEP_PREDICTOR_H_
#define TOPOPLACE_SCHEDULER_STEPTIME_STEP_PREDICTOR_H_

#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/steptime/comm_model.h"
#include "scheduler/steptime/reference_step.h"
#include "scheduler/traffic/tier_index.h"
#include "scheduler/traffic/traffic_report.h"

namespace topoplace::sched {

struct StepPrediction {
  double step_s = 0;       // seconds per iteration on the plan, alone on its links
  double reference_s = 0;  // seconds per iteration on the compact hosts, bytes at leaf speed
  // step_s / reference_s, at least 1 (the compact hosts fill domains in host order and may
  // themselves split a group a plan keeps whole); 1 for a job with no work.
  double slowdown = 1;
};

class StepPredictor {
 public:
  // On `tiers`' fabric with the comm model `options` give (CommModel::ForFabric). `tiers`
  // must not be null.
  StepPredictor(std::shared_ptr<const TierIndex> tiers, const CommModelOptions& options);
  StepPredictor(const StepPredictor&) = delete;
  StepPredictor& operator=(const StepPredictor&) = delete;

  // Preconditions: ValidateJobSpec(job) ok; `traffic` is the job's on this fabric.
  StepPrediction Predict(const JobSpec& job, const TrafficReport& traffic, bool rail_local) const;

  const CommModel& comm() const { return comm_; }

 private:
  const std::shared_ptr<const TierIndex> tiers_;
  const CommModel comm_;
  mutable absl::Mutex mu_;
  mutable ReferenceSteps rail_local_ ABSL_GUARDED_BY(mu_);
  mutable ReferenceSteps sender_nic_ ABSL_GUARDED_BY(mu_);
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_STEPTIME_STEP_PREDICTOR_H_
