#include "scheduler/sim/look_ahead.h"

#include <algorithm>
#include <limits>

namespace topoplace::sched::sim {

std::vector<bool> JobsNeedingABlock(const Fabric& fabric, const Trace& trace) {
  if (fabric.blocks().empty()) return {};
  size_t smallest = std::numeric_limits<size_t>::max();
  for (const Block& block : fabric.blocks()) smallest = std::min(smallest, block.hosts.size());
  std::vector<bool> needs(trace.jobs.size(), false);
  for (size_t j = 0; j < trace.jobs.size(); ++j) {
    const JobSpec& spec = trace.jobs[j].spec;
    needs[j] = spec.mode == ConstraintMode::kHard && spec.max_tier == MaxTier::kBlock &&
               2 * static_cast<size_t>(spec.nodes()) >= smallest;
  }
  return needs;
}

std::vector<int32_t> BlocksWholeSoonest(const Fabric& fabric,
                                        const std::set<std::pair<double, size_t>>& running,
                                        absl::FunctionRef<std::span<const GpuId>(size_t)> gpus_of,
                                        size_t count) {
  std::vector<double> whole_at(fabric.blocks().size(), 0);  // when each is whole free
  for (const auto& [end, j] : running) {
    for (GpuId g : gpus_of(j)) {
      const int32_t b = fabric.hosts()[fabric.gpus()[g].host].block;
      if (b >= 0) whole_at[b] = std::max(whole_at[b], end);
    }
  }
  std::vector<std::pair<double, int32_t>> soonest;
  for (int32_t b = 0; b < static_cast<int32_t>(whole_at.size()); ++b) {
    soonest.emplace_back(whole_at[b], b);
  }
  std::sort(soonest.begin(), soonest.end());
  std::vector<int32_t> kept;
  for (size_t i = 0; i < soonest.size() && i < count; ++i) kept.push_back(soonest[i].second);
  std::sort(kept.begin(), kept.end());
  return kept;
}

}  // namespace topoplace::sched::sim
