#include "scheduler/scorers/builtin_scorers.h"
#include "scheduler/scorers/normalize.h"

namespace topoplace::sched {
namespace {

class SpineBytesScorer final : public Scorer {
 public:
  absl::string_view name() const override { return kSpineBytesScorerName; }
  absl::string_view unit() const override { return "bytes/iteration at spine or core"; }
  ScoreResult Score(const ScoreInput& in) const override {
    // The reference is candidate-independent, so costs compare across candidates: every
    // byte of every dimension that can leave a node (TP cannot unless tp_across_nodes).
    const TrafficModel& t = in.ctx.traffic;
    double reference = 0;
    for (Dim d : kAllDims) {
      if (d == Dim::kTp && !in.ctx.job.tp_across_nodes) continue;
      reference += t.per_rank_bytes[static_cast<int>(d)] * in.ctx.layout.world_size();
    }
    const double spine = in.traffic.spine_bytes();
    return {spine, Ratio01(spine, reference)};
  }
};

}  // namespace

ScorerPtr MakeSpineBytesScorer() { return std::make_unique<SpineBytesScorer>(); }

}  // namespace topoplace::sched
