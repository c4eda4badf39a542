#include <algorithm>

#include "scheduler/scorers/builtin_scorers.h"

namespace topoplace::sched {
namespace {

// Raw: the comm-time model's seconds per iteration on the candidate (each tier at its
// bandwidth alone; steptime/comm_model.h). Cost: the share of that step that is not the
// job's compute, 1 - compute / step: it rises with the step time, and the compute part
// does not depend on the candidate, so costs compare across candidates.
class StepTimeScorer final : public Scorer {
 public:
  absl::string_view name() const override { return kStepTimeScorerName; }
  absl::string_view unit() const override {
    return "predicted seconds/iteration (alone on its links)";
  }
  ScoreResult Score(const ScoreInput& in) const override {
    if (in.ctx.comm == nullptr) return {0, 0};
    const double step = in.ctx.comm->StepSeconds(in.ctx.job, in.traffic);
    if (!(step > 0)) return {0, 0};
    const double compute = in.ctx.comm->ComputeSeconds(in.ctx.job);
    return {step, std::clamp(1 - compute / step, 0.0, 1.0)};
  }
};

}  // namespace

ScorerPtr MakeStepTimeScorer() { return std::make_unique<StepTimeScorer>(); }

}  // namespace topoplace::sched
