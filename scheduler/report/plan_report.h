// Renders a PlacementPlan for people (aligned text tables) and for scripts (stable JSON:
// fixed key order, schema "topoplace.plan/v1").
#ifndef TOPOPLACE_SCHEDULER_REPORT_PLAN_REPORT_H_
#define TOPOPLACE_SCHEDULER_REPORT_PLAN_REPORT_H_

#include <ostream>
#include <string>

#include "scheduler/placement/plan.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

// "1.50 GB", "320 MB", ... (decimal units).
std::string FormatBytes(double bytes);

// The plan as JSON. `fabric` must be the one the plan was made on.
std::string PlanToJson(const Fabric& fabric, const PlacementPlan& plan);

// The plan as text tables; at most `max_rank_rows` rows of the rank map are printed.
void PrintPlanTable(const Fabric& fabric, const PlacementPlan& plan, std::ostream& out,
                    int max_rank_rows = 16);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_REPORT_PLAN_REPORT_H_
