#include "scheduler/placement/make_plan.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/placement/lower_bound.h"

namespace topoplace::sched {

// The winner `best` (candidate `chosen`) as a plan: its hosts, ranks and traffic, the bytes
// per link when the request asks, its predicted step, the spine-bytes lower bound and each
// scorer's part of the cost.
PlacementPlan MakePlan(const ChooseStage& stage, const LinkIndex& links, const StepPredictor& steps,
                       Candidate chosen, EvaluatedCandidate best) {
  const PlacementContext& ctx = stage.ctx;
  const PlacementRequest& request = stage.request;
  const JobSpec& job = ctx.job;
  PlacementPlan plan;
  plan.policy = std::string(stage.policy);
  plan.fabric = ctx.fabric.name();
  plan.job = job;
  plan.routing = request.routing;
  plan.how = std::move(chosen.how);
  plan.node_hosts = std::move(chosen.node_hosts);
  plan.ranks = std::move(best.slots);
  plan.traffic_model = ctx.traffic;
  plan.traffic = std::move(best.traffic);
  if (request.link_loads) {
    const TrafficReport tallied = EvaluateTraffic(
        ctx.layout, ctx.traffic, plan.ranks, {best.attachments.get(), plan.ranks.size()},
        stage.router, job.gpus_per_node, /*tally_network=*/true,
        /*tally_flows=*/request.ecmp.mode == EcmpMode::kHash);
    plan.links = LinkLoads(links, plan.ranks, tallied, request.ecmp);
  }
  plan.footprint = best.footprint;
  plan.step = steps.Predict(job, plan.traffic, request.routing.rail_local);
  plan.spine_bytes_lower_bound =
      SpineBytesLowerBound(ctx.layout, ctx.traffic, ctx.inventory, ctx.nodes);
  for (size_t s = 0; s < stage.scorers.size(); ++s) {
    const WeightedScorer& ws = stage.scorers[s];
    const ScoreResult& r = best.scores[s];
    plan.explain.push_back({std::string(ws.scorer->name()), std::string(ws.scorer->unit()), r.raw,
                            r.normalized, ws.weight, ws.weight * r.normalized});
    plan.cost += plan.explain.back().weighted;
  }
  plan.relaxed = best.relaxed.has_value();
  if (best.relaxed) plan.notes.push_back(absl::StrCat("relaxed (soft): ", *best.relaxed));
  return plan;
}

}  // namespace topoplace::sched
