#include <algorithm>

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
    const NetworkTally& net = in.traffic.network;
    double hot = 0, total = 0;
    const auto add = [&](size_t leaf, double bytes) {
      total += bytes;
      // A leaf loaded beyond its uplinks' capacity is as bad as a full one.
      if (leaf < in.uplink_busy.size()) hot += bytes * std::clamp(in.uplink_busy[leaf], 0.0, 1.0);
    };
    for (const auto& [leaf, bytes] : net.leaf_up_sparse) add(static_cast<size_t>(leaf), bytes);
    // One entry per switch, few of them non-zero. A zero entry adds +0 to both sums (the
    // loads are >= 0, PlacementRequest::uplink_busy), which changes neither: skipped.
    for (size_t leaf = 0; leaf < net.leaf_up.size(); ++leaf) {
      if (net.leaf_up[leaf] != 0) add(leaf, net.leaf_up[leaf]);
    }
    return {hot, Ratio01(hot, total)};
  }
  // The sketch's leaf_up_sparse is exact up to the rounding of adding in another order
  // (see CandidateSketch), or empty (then 0); a hundred-millionth less is below the walk's.
  double LowerBound(const ScoreInput& sketch) const override {
    return Score(sketch).normalized * (1 - 1e-8);
  }
};

}  // namespace

ScorerPtr MakeUplinkLoadScorer() { return std::make_unique<UplinkLoadScorer>(); }

}  // namespace topoplace::sched
