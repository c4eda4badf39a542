#include "scheduler/sim/priority_mix.h"

#include <algorithm>
#include <limits>
#include <random>

#include "absl/strings/str_cat.h"

namespace topoplace::sched::sim {

absl::Status AssignPriorities(Trace& trace, const Fabric& fabric, const PriorityMix& mix) {
  if (!(mix.share >= 0) || mix.share > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("high-priority share: expected a number in [0, 1], got ", mix.share));
  }
  if (mix.min_gpus < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("high-priority minimum: expected at least 1 GPU, got ", mix.min_gpus));
  }
  if (mix.priority < 1 || mix.priority > kMaxPriority) {
    return absl::InvalidArgumentError(
        absl::StrCat("high priority: expected 1 to ", kMaxPriority, ", got ", mix.priority));
  }
  if (mix.share == 0) return absl::OkStatus();
  if (fabric.blocks().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("fabric '", fabric.name(), "' has no blocks to ask high-priority jobs for"));
  }
  size_t smallest_block = std::numeric_limits<size_t>::max();
  for (const Block& block : fabric.blocks()) {
    smallest_block = std::min(smallest_block, block.hosts.size());
  }
  // A stream of its own: the coins do not move when the trace generator's draws do.
  std::mt19937_64 rng(mix.seed * 0x9E3779B97F4A7C15ULL + 0x5052494FULL);
  for (TraceJob& job : trace.jobs) {
    const double coin = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    const bool eligible = job.spec.world_size() >= mix.min_gpus &&
                          static_cast<size_t>(job.spec.nodes()) <= smallest_block;
    if (!eligible || coin >= mix.share) continue;
    job.spec.priority = mix.priority;
    job.spec.max_tier = MaxTier::kBlock;
    job.spec.mode = ConstraintMode::kHard;
    job.spec.max_wait_s.reset();
  }
  return absl::OkStatus();
}

}  // namespace topoplace::sched::sim
