#include "scheduler/scorers/builtin_scorers.h"
#include "scheduler/scorers/normalize.h"

namespace topoplace::sched {
namespace {

class LinkHealthScorer final : public Scorer {
 public:
  absl::string_view name() const override { return kLinkHealthScorerName; }
  absl::string_view unit() const override { return "degraded hosts + bad uplink blocks used"; }
  ScoreResult Score(const ScoreInput& in) const override {
    const PlanFootprint& fp = in.footprint;
    // Bad uplinks only matter to a plan whose traffic actually leaves its blocks.
    const int bad_blocks = in.traffic.spine_bytes() > 0 ? fp.blocks_with_bad_uplinks : 0;
    const double raw = fp.degraded_hosts + bad_blocks;
    const double cost = Ratio01(fp.degraded_hosts, fp.nodes) + Ratio01(bad_blocks, fp.blocks_used);
    return {raw, Ratio01(cost, 1.0)};
  }
};

}  // namespace

ScorerPtr MakeLinkHealthScorer() { return std::make_unique<LinkHealthScorer>(); }

}  // namespace topoplace::sched
