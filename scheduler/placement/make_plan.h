// The last stage of PlacementEngine::Choose (choose_stage.h): the winning candidate as a
// plan, with what `explain` shows of it.
#ifndef TOPOPLACE_SCHEDULER_PLACEMENT_MAKE_PLAN_H_
#define TOPOPLACE_SCHEDULER_PLACEMENT_MAKE_PLAN_H_

#include "scheduler/framework/placement_policy.h"
#include "scheduler/placement/choose_stage.h"
#include "scheduler/placement/plan.h"
#include "scheduler/steptime/step_predictor.h"
#include "scheduler/traffic/link_loads.h"

namespace topoplace::sched {

// The winner `best` (candidate `chosen`) as a plan: its hosts, ranks and traffic, the bytes
// per link when the request asks, its predicted step, the spine-bytes lower bound and each
// scorer's part of the cost.
PlacementPlan MakePlan(const ChooseStage& stage, const LinkIndex& links, const StepPredictor& steps,
                       Candidate chosen, EvaluatedCandidate best);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_PLACEMENT_MAKE_PLAN_H_
