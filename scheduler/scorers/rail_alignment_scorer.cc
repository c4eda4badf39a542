#include "scheduler/scorers/builtin_scorers.h"
#include "scheduler/scorers/normalize.h"

namespace topoplace::sched {
namespace {

class RailAlignmentScorer final : public Scorer {
 public:
  absl::string_view name() const override { return kRailAlignmentScorerName; }
  absl::string_view unit() const override { return "network bytes/iteration across rails"; }
  ScoreResult Score(const ScoreInput& in) const override {
    const double cross = in.traffic.cross_rail_bytes;
    return {cross, Ratio01(cross, in.traffic.network_bytes())};
  }
};

}  // namespace

ScorerPtr MakeRailAlignmentScorer() { return std::make_unique<RailAlignmentScorer>(); }

}  // namespace topoplace::sched
