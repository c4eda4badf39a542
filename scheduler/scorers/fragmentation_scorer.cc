#include <algorithm>

#include "scheduler/scorers/builtin_scorers.h"

namespace topoplace::sched {
namespace {

class FragmentationScorer final : public Scorer {
 public:
  absl::string_view name() const override { return kFragmentationScorerName; }
  absl::string_view unit() const override { return "change in partly used blocks"; }
  ScoreResult Score(const ScoreInput& in) const override {
    const double delta = in.footprint.fragmentation_delta();
    const double per_block = delta / std::max(1, in.footprint.blocks_used);
    // -1 (every touched block completed) -> 0; +1 (every touched block newly broken) -> 1.
    return {delta, (std::clamp(per_block, -1.0, 1.0) + 1) / 2};
  }
  // Reads only the blocks used and the partly used blocks, which the sketch has exact.
  double LowerBound(const ScoreInput& sketch) const override { return Score(sketch).normalized; }
};

}  // namespace

ScorerPtr MakeFragmentationScorer() { return std::make_unique<FragmentationScorer>(); }

}  // namespace topoplace::sched
