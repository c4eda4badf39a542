#include "scheduler/scorers/builtin_scorers.h"
#include "scheduler/scorers/normalize.h"

namespace topoplace::sched {
namespace {

class SpineBytesScorer final : public Scorer {
 public:
  absl::string_view name() const override { return kSpineBytesScorerName; }
  absl::string_view unit() const override { return "bytes/iteration at spine or core"; }
  ScoreResult Score(const ScoreInput& in) const override {
    const double spine = in.traffic.spine_bytes();
    return {spine, Ratio01(spine, MovableBytes(in.ctx))};
  }
  // Rises with the spine bytes, which the sketch bounds from below.
  double LowerBound(const ScoreInput& sketch) const override { return Score(sketch).normalized; }
};

}  // namespace

ScorerPtr MakeSpineBytesScorer() { return std::make_unique<SpineBytesScorer>(); }

}  // namespace topoplace::sched
