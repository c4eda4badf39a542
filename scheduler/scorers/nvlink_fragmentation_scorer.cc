#include <algorithm>

#include "scheduler/scorers/builtin_scorers.h"

namespace topoplace::sched {
namespace {

class NvlinkFragmentationScorer final : public Scorer {
 public:
  absl::string_view name() const override { return kNvlinkFragmentationScorerName; }
  absl::string_view unit() const override { return "change in partly used NVLink domains"; }
  ScoreResult Score(const ScoreInput& in) const override {
    if (in.footprint.nvlink_domains_used == 0) return {0, 0};  // no multi-host domains
    const double delta = in.footprint.domain_fragmentation_delta();
    const double per_domain = delta / in.footprint.nvlink_domains_used;
    // As the block fragmentation scorer: -1 (all completed) -> 0, +1 (all broken) -> 1.
    return {delta, (std::clamp(per_domain, -1.0, 1.0) + 1) / 2};
  }
};

}  // namespace

ScorerPtr MakeNvlinkFragmentationScorer() { return std::make_unique<NvlinkFragmentationScorer>(); }

}  // namespace topoplace::sched
