// The result of a placement: which hosts, the rank map, where the bytes go, the lower
// bound, and each scorer's part of the decision (explain).
#ifndef TOPOPLACE_SCHEDULER_PLACEMENT_PLAN_H_
#define TOPOPLACE_SCHEDULER_PLACEMENT_PLAN_H_

#include <string>
#include <vector>

#include "scheduler/framework/footprint.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/mapping/rank_map.h"
#include "scheduler/steptime/step_predictor.h"
#include "scheduler/traffic/link_loads.h"
#include "scheduler/traffic/routing.h"
#include "scheduler/traffic/traffic_model.h"
#include "scheduler/traffic/traffic_report.h"

namespace topoplace::sched {

// One scorer's part: weighted = weight * normalized; the plan's cost is their sum.
struct ScorerContribution {
  std::string scorer;
  std::string unit;
  double raw = 0;
  double normalized = 0;
  double weight = 0;
  double weighted = 0;
};

struct PlacementPlan {
  std::string policy;
  std::string fabric;
  JobSpec job;
  RoutingOptions routing;
  std::string how;                 // how the chosen candidate was built
  std::vector<HostId> node_hosts;  // host of node k (rank order)
  std::vector<RankSlot> ranks;     // rank -> (host, GPU, NIC)
  TrafficModel traffic_model;
  TrafficReport traffic;
  // Bytes per iteration on every link the plan crosses; filled when the request asks
  // (PlacementRequest::link_loads).
  std::vector<LinkLoad> links;
  PlanFootprint footprint;
  double spine_bytes_lower_bound = 0;
  // The job's predicted seconds per iteration here and its slowdown against the compact
  // reference (PlacementEngine::steps()).
  StepPrediction step;
  std::vector<ScorerContribution> explain;
  double cost = 0;
  int candidates_considered = 0;  // proposed by the policy
  // Of those, how many the engine evaluated in full; the others' lower bounds
  // (CandidateSketch) showed they could not win. Not in the plan's JSON.
  int candidates_evaluated = 0;
  std::vector<std::string> notes;  // relaxed constraints and the like
  bool relaxed = false;            // placed beyond max_tier (mode soft); notes say how
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_PLACEMENT_PLAN_H_
