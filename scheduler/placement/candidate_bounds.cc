#include "scheduler/placement/candidate_bounds.h"

#include <algorithm>

namespace topoplace::sched {
namespace {

// Lower bounds add up to a bound on the cost only when no weight is negative.
bool NoNegativeWeights(const std::vector<WeightedScorer>& scorers) {
  return std::all_of(scorers.begin(), scorers.end(),
                     [](const WeightedScorer& ws) { return ws.weight >= 0; });
}

}  // namespace

// Per candidate, a lower bound on its cost from its sketch, and `order` sorted by it
// (stable): with several candidates they are evaluated cheapest bound first, and one whose
// bound reaches the best cost so far cannot win. All 0, order untouched, for one candidate
// or when a negative weight makes the bounds no bound.
std::vector<double> CandidateLowerBounds(const ChooseStage& stage, const ClimbFacts& climb,
                                         const std::vector<Candidate>& candidates,
                                         std::vector<size_t>& order) {
  std::vector<double> bound(candidates.size(), 0);
  if (order.size() <= 1 || !NoNegativeWeights(stage.scorers)) return bound;
  const CandidateSketcher sketcher(stage.ctx, stage.health, stage.tiers, climb,
                                   stage.request.routing);
  for (size_t i : order) {
    const CandidateSketch sketch = sketcher.Sketch(candidates[i].node_hosts);
    const ScoreInput in{stage.ctx, sketch.traffic, sketch.footprint, stage.request.uplink_busy};
    for (const WeightedScorer& ws : stage.scorers) {
      bound[i] += ws.weight * ws.scorer->LowerBound(in);
    }
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return bound[a] < bound[b]; });
  return bound;
}

}  // namespace topoplace::sched
