// What the stages of PlacementEngine::Choose (engine.h) share: ChooseStage, what each of
// them reads, and EvaluatedCandidate, one candidate evaluated in full and kept while it is
// the best. The stages, in order after the policy's candidates and their shapes
// (candidate_shapes.h):
//
//   bound = CandidateLowerBounds(stage, climb, candidates, order);     // candidate_bounds.h
//   ev = EvaluateCandidate(stage, occupancy, candidates[i], i, why);   // evaluate_candidate.h
//   plan = MakePlan(stage, links, steps, candidates[ev->index], *ev);  // make_plan.h
#ifndef TOPOPLACE_SCHEDULER_PLACEMENT_CHOOSE_STAGE_H_
#define TOPOPLACE_SCHEDULER_PLACEMENT_CHOOSE_STAGE_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "scheduler/framework/footprint.h"
#include "scheduler/framework/placement_policy.h"
#include "scheduler/framework/scorer.h"
#include "scheduler/mapping/rank_map.h"
#include "scheduler/placement/engine.h"
#include "scheduler/state/health.h"
#include "scheduler/traffic/link_loads.h"
#include "scheduler/traffic/routing.h"
#include "scheduler/traffic/tier_index.h"
#include "scheduler/traffic/traffic_report.h"

namespace topoplace::sched {

// What every stage of Choose reads: the request, its context and scorers, and the engine's
// precomputed views. Holds references: everything it names outlives it.
struct ChooseStage {
  const PlacementRequest& request;
  const PlacementContext& ctx;
  const std::vector<WeightedScorer>& scorers;
  const Router& router;
  const HealthView& health;
  const TierIndex& tiers;
  absl::string_view policy;
  // The fabric's links, when a scorer of weight > 0 needs_links() (ScoreInput::links);
  // else null and no candidate's links are walked.
  const LinkIndex* links = nullptr;
};

// The evaluated state of one candidate, kept for the winner.
struct EvaluatedCandidate {
  size_t index = 0;
  std::vector<RankSlot> slots;
  std::unique_ptr<Attachment[]> attachments;  // per slot; the link-load walk reuses them
  TrafficReport traffic;
  PlanFootprint footprint;
  std::vector<ScoreResult> scores;
  double cost = 0;
  std::optional<std::string> relaxed;
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_PLACEMENT_CHOOSE_STAGE_H_
