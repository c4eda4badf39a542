// Draws a plan over its fabric as one self-contained SVG file (no scripts, no external
// fonts): one row per block, grouped by pod, one cell per host. The job's hosts are
// coloured by pipeline stage, so the blocks each stage lands in (and the stage boundaries
// that cross blocks) are visible at a glance; busy hosts are grey, free ones white.
#ifndef TOPOPLACE_SCHEDULER_REPORT_PLAN_SVG_H_
#define TOPOPLACE_SCHEDULER_REPORT_PLAN_SVG_H_

#include <string>

#include "scheduler/placement/plan.h"
#include "scheduler/state/occupancy.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

// `background` is the occupancy the plan was made against. Preconditions: the plan was
// made on `fabric`.
std::string PlanToSvg(const Fabric& fabric, const PlacementPlan& plan, const Occupancy& background);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_REPORT_PLAN_SVG_H_
