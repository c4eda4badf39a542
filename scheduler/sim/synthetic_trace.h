// A synthetic large-job mix for a given fabric, to complement the small-job Philly sample:
// LLM-training-sized jobs whose placement decides how much traffic climbs to the spine.
//
//   - sizes: powers of two from 16 GPUs up to the largest power of two <= half the fabric,
//     each size class equally likely (so most GPU-time is in large jobs);
//   - durations: log-uniform in [1 h, 12 h];
//   - arrivals: a Poisson process whose rate offers `target_load` of the fabric's GPUs
//     (mean size x mean duration x rate = target_load x GPUs);
//   - PTD-P degrees and model from the GPU count (degree_rule.h), for the hosts of
//     `options.shape`;
//   - with moe_share > 0, that share of the jobs (a coin per job) are mixture-of-experts
//     jobs shaped by the MoE rule (synthetic:moe-mix: half of them; no public trace gives
//     the share, Acme's NSDI'24 trace has no MoE category, so it is ours to state).
// Deterministic for (gpus, options); uses its own transforms of std::mt19937_64 so the
// stream does not depend on the standard library's distributions.
#ifndef TOPOPLACE_SCHEDULER_SIM_SYNTHETIC_TRACE_H_
#define TOPOPLACE_SCHEDULER_SIM_SYNTHETIC_TRACE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "scheduler/sim/degree_rule.h"
#include "scheduler/sim/trace.h"

namespace topoplace::sched::sim {

inline constexpr absl::string_view kLargeMixTraceName = "synthetic:large-mix";
inline constexpr absl::string_view kMoeMixTraceName = "synthetic:moe-mix";
// The MoE share of synthetic:moe-mix (see above).
inline constexpr double kMoeMixShare = 0.5;

struct LargeMixOptions {
  int64_t jobs = 1000;
  uint64_t seed = 1;
  double target_load = 0.9;
  double moe_share = 0;  // in [0, 1]
  NodeShape shape = {};
};

// InvalidArgument if fabric_gpus < 32, jobs < 1, target_load not in (0, 100] or
// moe_share not in [0, 1].
absl::StatusOr<Trace> GenerateLargeJobMix(int64_t fabric_gpus, const LargeMixOptions& options);

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_SYNTHETIC_TRACE_H_
