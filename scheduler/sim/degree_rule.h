// The documented rule that turns a bare GPU count (all a public trace such as Philly's
// records) into PTD-P degrees and a model, so that the placement engine can derive the
// job's traffic. The rule, for n GPUs:
//
//   1. n <= 8 (one node): gpus_per_node = n; tp = the largest power of two dividing n;
//      dp = n / tp; pp = 1.
//   2. n > 8: gpus_per_node = tp = the largest of 8, 4, 2, 1 dividing n (whole nodes when
//      possible); r = n / tp nodes' worth of TP groups.
//   3. Model by size, as clusters use them: n <= 16 -> 7b, n <= 256 -> 70b,
//      n <= 2048 -> 175b, larger -> 405b.
//   4. pp = the largest power of two dividing r that is at most the model's pipeline cap
//      (7b: 1, 70b: 4, 175b: 8, 405b: 16) and at most its layer count; dp = r / pp.
//
//   JobForGpuCount(1)   -> tp=1,pp=1,dp=1,gpus_per_node=1, model 7b
//   JobForGpuCount(64)  -> tp=8,pp=4,dp=2,gpus_per_node=8, model 70b
//   JobForGpuCount(12)  -> tp=4,pp=1,dp=3,gpus_per_node=4, model 7b
#ifndef TOPOPLACE_SCHEDULER_SIM_DEGREE_RULE_H_
#define TOPOPLACE_SCHEDULER_SIM_DEGREE_RULE_H_

#include "absl/status/statusor.h"
#include "scheduler/job/job_spec.h"

namespace topoplace::sched::sim {

// Applies the rule above. InvalidArgument if gpus < 1 or > 2^24.
absl::StatusOr<JobSpec> JobForGpuCount(int64_t gpus);

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_DEGREE_RULE_H_
