// The documented rule that turns a bare GPU count (all a public trace such as Philly's
// records) into PTD-P degrees and a model, so that the placement engine can derive the
// job's traffic. The rule, for n GPUs on hosts of g GPUs (NodeShape; 8 by default):
//
//   1. n <= g (one node): gpus_per_node = n; tp = the largest power of two dividing n;
//      dp = n / tp; pp = 1.
//   2. n > g: gpus_per_node = tp = the largest power of two up to g dividing n (whole
//      nodes when possible; TP stays inside a host); r = n / tp nodes' worth of TP groups.
//   3. Model by size, as clusters use them: n <= 16 -> 7b, n <= 256 -> 70b,
//      n <= 2048 -> 175b, larger -> 405b.
//   4. pp = the largest power of two dividing r that is at most the model's pipeline cap
//      (7b: 1, 70b: 4, 175b: 8, 405b: 16) and at most its layer count; dp = r / pp.
//
//   JobForGpuCount(1)   -> tp=1,pp=1,dp=1,gpus_per_node=1, model 7b
//   JobForGpuCount(64)  -> tp=8,pp=4,dp=2,gpus_per_node=8, model 70b
//   JobForGpuCount(12)  -> tp=4,pp=1,dp=3,gpus_per_node=4, model 7b
//   JobForGpuCount(64, {.gpus_per_node = 4}) -> tp=4,pp=4,dp=4,gpus_per_node=4, model 70b
//
// The MoE rule (MoeJobForGpuCount) turns n GPUs into an expert-parallel job: model by size
// (n <= 64 -> mixtral-8x7b, n <= 512 -> qwen3-235b, larger -> deepseek-v3); tp as above
// but at most 4 (MoE training keeps TP small: DeepSeek-V3 used none, arXiv 2412.19437
// sec. 3.2); ep = the largest power of two dividing n / tp, at most the model's experts and
// at most what one NVLink domain holds beside tp (so the all-to-all stays on NVLink where
// the fabric allows: on 8-GPU hosts ep*tp <= 8); pp as rule 4 on the rest; dp the rest.
#ifndef TOPOPLACE_SCHEDULER_SIM_DEGREE_RULE_H_
#define TOPOPLACE_SCHEDULER_SIM_DEGREE_RULE_H_

#include "absl/status/statusor.h"
#include "scheduler/job/job_spec.h"
#include "topology/model/fabric.h"

namespace topoplace::sched::sim {

// The hosts a rule shapes jobs for: GPUs per host and per NVLink domain.
struct NodeShape {
  int gpus_per_node = 8;
  int nvlink_domain_gpus = 8;
};

// The shape of `fabric`'s hosts: the most GPUs any host has, and its largest NVLink domain
// in GPUs.
NodeShape NodeShapeOf(const Fabric& fabric);

// Applies the rule above. InvalidArgument if gpus < 1 or > 2^24.
absl::StatusOr<JobSpec> JobForGpuCount(int64_t gpus, const NodeShape& shape = {});

// Applies the MoE rule above. InvalidArgument if gpus < 1 or > 2^24.
absl::StatusOr<JobSpec> MoeJobForGpuCount(int64_t gpus, const NodeShape& shape = {});

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_DEGREE_RULE_H_
