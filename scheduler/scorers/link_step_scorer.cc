#include <algorithm>

#include "scheduler/scorers/builtin_scorers.h"
#include "scheduler/traffic/link_loads.h"

namespace topoplace::sched {
namespace {

// Raw: seconds per iteration with the candidate's network part at its busiest cable, alone
// (CommModel::LinkStepSeconds). Cost: 1 - compute / step, as the step-time
// scorer's, so the two compare.
class LinkStepScorer final : public Scorer {
 public:
  absl::string_view name() const override { return kLinkStepScorerName; }
  absl::string_view unit() const override {
    return "predicted seconds/iteration (its busiest cable, alone)";
  }
  bool needs_links() const override { return true; }
  ScoreResult Score(const ScoreInput& in) const override {
    const CommModel* comm = in.ctx.comm;
    // Without links (the engine walks them only at a weight > 0) nothing is known: 0, not
    // a step that leaves the network out.
    if (comm == nullptr || (in.links.empty() && in.traffic.network_bytes() > 0)) return {0, 0};
    const JobSpec& job = in.ctx.job;
    const double compute = comm->ComputeSeconds(job);
    const double step =
        comm->LinkStepSeconds(job, in.traffic, BusiestCableSeconds(in.ctx.fabric, in.links));
    if (!(step > 0)) return {0, 0};
    return {step, std::clamp(1 - compute / step, 0.0, 1.0)};
  }
};

}  // namespace

ScorerPtr MakeLinkStepScorer() { return std::make_unique<LinkStepScorer>(); }

}  // namespace topoplace::sched
