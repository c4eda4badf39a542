#include <algorithm>
#include <cmath>

#include "scheduler/scorers/builtin_scorers.h"
#include "scheduler/scorers/normalize.h"

namespace topoplace::sched {
namespace {

class UplinkLoadScorer final : public Scorer {
 public:
  absl::string_view name() const override { return kUplinkLoadScorerName; }
  absl::string_view unit() const override {
    return "bytes/iteration sent up through loaded leaves, times their load";
  }
  ScoreResult Score(const ScoreInput& in) const override {
    // No load known: nothing is hot, and the ratio of nothing is 0 (Ratio01).
    if (in.uplink_busy.empty()) return {0, 0};
    const std::vector<double>& up = in.traffic.network.leaf_up;
    const size_t n = std::min(up.size(), in.uplink_busy.size());
    double hot = 0, total = 0;
    // One entry per switch, few of them non-zero. x + 0 == x for every x but -0, and both
    // sums start at +0 and never become -0, so a zero entry is skipped (unless its load is
    // NaN, which makes `hot` NaN as it always did); the other terms keep their order.
    for (size_t leaf = 0; leaf < up.size(); ++leaf) {
      const bool loaded = leaf < n;
      if (up[leaf] == 0 && !(loaded && std::isnan(in.uplink_busy[leaf]))) continue;
      total += up[leaf];
      // A leaf loaded beyond its uplinks' capacity is as bad as a full one.
      if (loaded) hot += up[leaf] * std::clamp(in.uplink_busy[leaf], 0.0, 1.0);
    }
    return {hot, Ratio01(hot, total)};
  }
  // The sketch's leaf_up is exact up to the rounding of adding in another order (see
  // CandidateSketch), or empty (then 0); a hundred-millionth less is below the walk's.
  double LowerBound(const ScoreInput& sketch) const override {
    return Score(sketch).normalized * (1 - 1e-8);
  }
};

}  // namespace

ScorerPtr MakeUplinkLoadScorer() { return std::make_unique<UplinkLoadScorer>(); }

}  // namespace topoplace::sched
