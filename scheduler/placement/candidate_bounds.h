// The sketch stage of PlacementEngine::Choose (choose_stage.h): per candidate, a lower bound
// on its cost from its sketch (candidate_sketch.h), so that candidates are evaluated
// cheapest bound first and one whose bound reaches the best cost so far is skipped.
#ifndef TOPOPLACE_SCHEDULER_PLACEMENT_CANDIDATE_BOUNDS_H_
#define TOPOPLACE_SCHEDULER_PLACEMENT_CANDIDATE_BOUNDS_H_

#include <cstddef>
#include <vector>

#include "scheduler/framework/placement_policy.h"
#include "scheduler/placement/candidate_sketch.h"
#include "scheduler/placement/choose_stage.h"

namespace topoplace::sched {

// Per candidate, a lower bound on its cost from its sketch, and `order` sorted by it
// (stable): with several candidates they are evaluated cheapest bound first, and one whose
// bound reaches the best cost so far cannot win. All 0, order untouched, for one candidate
// or when a negative weight makes the bounds no bound.
std::vector<double> CandidateLowerBounds(const ChooseStage& stage, const ClimbFacts& climb,
                                         const std::vector<Candidate>& candidates,
                                         std::vector<size_t>& order);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_PLACEMENT_CANDIDATE_BOUNDS_H_
