#include "scheduler/scorers/builtin_scorers.h"
#include "scheduler/scorers/normalize.h"

namespace topoplace::sched {
namespace {

class NvlinkEgressScorer final : public Scorer {
 public:
  absl::string_view name() const override { return kNvlinkEgressScorerName; }
  absl::string_view unit() const override { return "bytes/iteration leaving NVLink domains"; }
  ScoreResult Score(const ScoreInput& in) const override {
    // Where each host is its own domain, every candidate sends the same bytes off its
    // hosts (the layout fixes them): nothing to choose by, so nothing is charged.
    if (!in.ctx.inventory.nvlink_level()) return {0, 0};
    const double network = in.traffic.network_bytes();
    return {network, Ratio01(network, MovableBytes(in.ctx))};
  }
};

}  // namespace

ScorerPtr MakeNvlinkEgressScorer() { return std::make_unique<NvlinkEgressScorer>(); }

}  // namespace topoplace::sched
