#include "scheduler/sim/synthetic_trace.h"

#include <cmath>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "scheduler/sim/degree_rule.h"

namespace topoplace::sched::sim {
namespace {

constexpr double kMinDurationS = 3600, kMaxDurationS = 12 * 3600;

// Uniform in [0, 1) from the top 53 bits.
double Uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace

absl::StatusOr<Trace> GenerateLargeJobMix(int64_t fabric_gpus, const LargeMixOptions& options) {
  if (fabric_gpus < 32) {
    return absl::InvalidArgumentError(
        absl::StrCat("large-job mix: the fabric needs at least 32 GPUs, has ", fabric_gpus));
  }
  if (options.jobs < 1 || options.jobs > 10'000'000) {
    return absl::InvalidArgumentError(
        absl::StrCat("large-job mix: expected 1 to 10000000 jobs, got ", options.jobs));
  }
  if (!(options.moe_share >= 0) || options.moe_share > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("large-job mix: expected an MoE share in [0, 1], got ", options.moe_share));
  }
  if (!(options.target_load > 0) || options.target_load > 100) {
    return absl::InvalidArgumentError(absl::StrCat(
        "large-job mix: expected a target load in (0, 100], got ", options.target_load));
  }
  std::vector<int64_t> sizes;
  for (int64_t s = 16; s <= fabric_gpus / 2; s *= 2) sizes.push_back(s);
  double mean_size = 0;
  for (int64_t s : sizes) mean_size += static_cast<double>(s);
  mean_size /= static_cast<double>(sizes.size());
  // Mean of a log-uniform variable on [a, b]: (b - a) / ln(b / a).
  const double mean_duration =
      (kMaxDurationS - kMinDurationS) / std::log(kMaxDurationS / kMinDurationS);
  const double rate =
      options.target_load * static_cast<double>(fabric_gpus) / (mean_size * mean_duration);

  std::mt19937_64 rng(options.seed);
  Trace trace;
  trace.source = std::string(options.moe_share > 0 ? kMoeMixTraceName : kLargeMixTraceName);
  double t = 0;
  for (int64_t id = 0; id < options.jobs; ++id) {
    TraceJob job;
    job.id = id;
    job.arrival_s = t;
    const size_t k = std::min(
        sizes.size() - 1, static_cast<size_t>(Uniform(rng) * static_cast<double>(sizes.size())));
    job.duration_s = std::round(kMinDurationS *
                                std::exp(Uniform(rng) * std::log(kMaxDurationS / kMinDurationS)));
    // The coin is drawn only for a mix with MoE jobs, so the large mix stays as it was.
    job.moe = options.moe_share > 0 && Uniform(rng) < options.moe_share;
    job.derived_from_gpus = sizes[k];
    TP_ASSIGN_OR_RETURN(job.spec, job.moe ? MoeJobForGpuCount(sizes[k], options.shape)
                                          : JobForGpuCount(sizes[k], options.shape));
    trace.jobs.push_back(std::move(job));
    t += std::round(-std::log(1.0 - Uniform(rng)) / rate);
  }
  return trace;
}

}  // namespace topoplace::sched::sim
