#include "scheduler/sim/degree_rule.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "scheduler/job/model_presets.h"

namespace topoplace::sched::sim {
namespace {

int64_t LargestPowerOfTwoDividing(int64_t n, int64_t cap) {
  int64_t p = 1;
  while (p * 2 <= cap && n % (p * 2) == 0) p *= 2;
  return p;
}

struct ModelChoice {
  const char* preset;
  int64_t pp_cap;
};

ModelChoice ModelForSize(int64_t gpus) {
  if (gpus <= 16) return {"7b", 1};
  if (gpus <= 256) return {"70b", 4};
  if (gpus <= 2048) return {"175b", 8};
  return {"405b", 16};
}

absl::Status CheckCount(int64_t gpus) {
  if (gpus >= 1 && gpus <= (int64_t{1} << 24)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("GPU count: expected an integer in [1, 16777216], got ", gpus));
}

absl::StatusOr<JobSpec> WithModel(const char* preset) {
  const ModelShape* shape = FindModelPreset(preset);
  if (shape == nullptr) {
    return absl::InternalError(absl::StrCat("model preset '", preset, "' is missing"));
  }
  JobSpec job;
  job.model = *shape;
  return job;
}

// Rules 1 and 2: gpus_per_node and tp (at most `tp_cap`) for n GPUs on `shape`'s hosts;
// returns the GPUs left for the other dimensions, n / tp.
int64_t ShapeNodes(JobSpec& job, int64_t gpus, const NodeShape& shape, int64_t tp_cap) {
  const int64_t g = std::max(1, shape.gpus_per_node);
  job.tp = static_cast<int>(LargestPowerOfTwoDividing(gpus, std::min(g, tp_cap)));
  job.gpus_per_node =
      gpus <= g ? static_cast<int>(gpus) : static_cast<int>(LargestPowerOfTwoDividing(gpus, g));
  // TP inside one host: a host holds whole TP groups.
  if (job.gpus_per_node % job.tp != 0) job.tp = job.gpus_per_node;
  return gpus / job.tp;
}

}  // namespace

NodeShape NodeShapeOf(const Fabric& fabric) {
  NodeShape shape{1, 1};
  for (const Host& h : fabric.hosts()) {
    shape.gpus_per_node = std::max(shape.gpus_per_node, static_cast<int>(h.gpus.size()));
  }
  for (const std::vector<HostId>& domain : fabric.nvlink_domains()) {
    int gpus = 0;
    for (HostId h : domain) gpus += static_cast<int>(fabric.hosts()[h].gpus.size());
    shape.nvlink_domain_gpus = std::max(shape.nvlink_domain_gpus, gpus);
  }
  return shape;
}

absl::StatusOr<JobSpec> JobForGpuCount(int64_t gpus, const NodeShape& shape) {
  TP_RETURN_IF_ERROR(CheckCount(gpus));
  const ModelChoice choice = ModelForSize(gpus);
  TP_ASSIGN_OR_RETURN(JobSpec job, WithModel(choice.preset));
  const int64_t rest = ShapeNodes(job, gpus, shape, 8);
  if (gpus <= shape.gpus_per_node) {
    job.dp = static_cast<int>(rest);
  } else {
    job.pp = static_cast<int>(
        LargestPowerOfTwoDividing(rest, std::min(choice.pp_cap, job.model.layers)));
    job.dp = static_cast<int>(rest / job.pp);
  }
  TP_RETURN_IF_ERROR(ValidateJobSpec(job));
  return job;
}

absl::StatusOr<JobSpec> MoeJobForGpuCount(int64_t gpus, const NodeShape& shape) {
  TP_RETURN_IF_ERROR(CheckCount(gpus));
  const char* preset = gpus <= 64 ? "mixtral-8x7b" : gpus <= 512 ? "qwen3-235b" : "deepseek-v3";
  TP_ASSIGN_OR_RETURN(JobSpec job, WithModel(preset));
  int64_t rest = ShapeNodes(job, gpus, shape, 4);
  const int64_t domain_cap = std::max<int64_t>(1, shape.nvlink_domain_gpus / job.tp);
  job.ep = static_cast<int>(
      LargestPowerOfTwoDividing(rest, std::min<int64_t>(job.model.experts, domain_cap)));
  rest /= job.ep;
  const int64_t pp_cap = gpus <= 64 ? 1 : 16;  // DeepSeek-V3 trained with PP16 (sec. 3.2)
  job.pp = static_cast<int>(LargestPowerOfTwoDividing(rest, std::min(pp_cap, job.model.layers)));
  job.dp = static_cast<int>(rest / job.pp);
  TP_RETURN_IF_ERROR(ValidateJobSpec(job));
  return job;
}

}  // namespace topoplace::sched::sim
