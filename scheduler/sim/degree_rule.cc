#include "scheduler/sim/degree_rule.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "scheduler/job/model_presets.h"
#include "topology/base/status_macros.h"

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

}  // namespace

absl::StatusOr<JobSpec> JobForGpuCount(int64_t gpus) {
  if (gpus < 1 || gpus > (int64_t{1} << 24)) {
    return absl::InvalidArgumentError(
        absl::StrCat("GPU count: expected an integer in [1, 16777216], got ", gpus));
  }
  const ModelChoice choice = ModelForSize(gpus);
  const ModelShape* shape = FindModelPreset(choice.preset);
  if (shape == nullptr) {
    return absl::InternalError(absl::StrCat("model preset '", choice.preset, "' is missing"));
  }
  JobSpec job;
  job.model = *shape;
  if (gpus <= 8) {
    job.gpus_per_node = static_cast<int>(gpus);
    job.tp = static_cast<int>(LargestPowerOfTwoDividing(gpus, 8));
    job.dp = static_cast<int>(gpus / job.tp);
  } else {
    job.tp = static_cast<int>(LargestPowerOfTwoDividing(gpus, 8));
    job.gpus_per_node = job.tp;
    const int64_t rest = gpus / job.tp;
    job.pp =
        static_cast<int>(LargestPowerOfTwoDividing(rest, std::min(choice.pp_cap, shape->layers)));
    job.dp = static_cast<int>(rest / job.pp);
  }
  TP_RETURN_IF_ERROR(ValidateJobSpec(job));
  return job;
}

}  // namespace topoplace::sched::sim
