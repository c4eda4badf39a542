#include "scheduler/scorers/builtin_scorers.h"
#include "scheduler/scorers/normalize.h"

namespace topoplace::sched {
namespace {

class SpreadScorer final : public Scorer {
 public:
  absl::string_view name() const override { return kSpreadScorerName; }
  absl::string_view unit() const override { return "mean blocks per DP/PP/CP/EP group"; }
  ScoreResult Score(const ScoreInput& in) const override {
    double raw = 0, cost = 0;
    int dims = 0;
    for (Dim d : {Dim::kCp, Dim::kEp, Dim::kDp, Dim::kPp}) {
      const int size = in.ctx.layout.size(d);
      if (size <= 1) continue;
      const double blocks = in.traffic.spread[static_cast<int>(d)].mean_blocks;
      raw += blocks;
      // One block is ideal; one block per member is the worst.
      cost += Ratio01(blocks - 1, size - 1);
      ++dims;
    }
    if (dims == 0) return {1, 0};
    return {raw / dims, cost / dims};
  }
  // Rises with each dimension's mean blocks, exact or bounded from below in the sketch.
  double LowerBound(const ScoreInput& sketch) const override { return Score(sketch).normalized; }
};

}  // namespace

ScorerPtr MakeSpreadScorer() { return std::make_unique<SpreadScorer>(); }

}  // namespace topoplace::sched
