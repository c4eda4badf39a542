#include "scheduler/scorers/builtin_scorers.h"
#include "scheduler/scorers/normalize.h"

namespace topoplace::sched {
namespace {

class MaxHopsScorer final : public Scorer {
 public:
  absl::string_view name() const override { return kMaxHopsScorerName; }
  absl::string_view unit() const override { return "switches on the longest path"; }
  ScoreResult Score(const ScoreInput& in) const override {
    const double hops = in.traffic.max_hops;
    return {hops, Ratio01(hops, SwitchHops(Tier::kCore))};
  }
  // Rises with max_hops, which the sketch bounds from below.
  double LowerBound(const ScoreInput& sketch) const override { return Score(sketch).normalized; }
};

}  // namespace

ScorerPtr MakeMaxHopsScorer() { return std::make_unique<MaxHopsScorer>(); }

}  // namespace topoplace::sched
