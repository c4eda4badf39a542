#include "scheduler/placement/engine.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "scheduler/framework/footprint.h"
#include "scheduler/framework/inventory.h"
#include "scheduler/framework/nvlink_domains.h"
#include "scheduler/framework/wait_reason.h"
#include "scheduler/mapping/rank_layout.h"
#include "scheduler/placement/candidate_bounds.h"
#include "scheduler/placement/candidate_shapes.h"
#include "scheduler/placement/candidate_sketch.h"
#include "scheduler/placement/choose_stage.h"
#include "scheduler/placement/evaluate_candidate.h"
#include "scheduler/placement/faster_domains.h"
#include "scheduler/placement/make_plan.h"
#include "scheduler/traffic/traffic_report.h"

namespace topoplace::sched {
namespace {

// Shares of uplinks in use are read by comparisons and sums that a NaN would silently
// break (and a negative share means nothing): such a request is turned down.
absl::Status ValidateUplinkBusy(std::span<const double> busy) {
  for (size_t s = 0; s < busy.size(); ++s) {
    if (!(busy[s] >= 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "uplink_busy[", s, "] is ", busy[s],
          ": each switch's share of its uplink capacity in use must be a number >= 0"));
    }
  }
  return absl::OkStatus();
}

// The outlook's figures feed sums and comparisons too: a host_free_in_s that is not one
// entry per host, a NaN or negative time, a run_s that is not a finite number >= 0, or a
// waiting job of no hosts is turned down.
absl::Status ValidateOutlook(const QueueOutlook& outlook, const Fabric& fabric) {
  const std::vector<double>& free_in = outlook.host_free_in_s;
  if (!free_in.empty() && free_in.size() != fabric.hosts().size()) {
    return absl::InvalidArgumentError(absl::StrCat("outlook.host_free_in_s has ", free_in.size(),
                                                   " entries, the fabric ", fabric.hosts().size(),
                                                   " hosts: expected one per host, or none"));
  }
  for (size_t h = 0; h < free_in.size(); ++h) {
    if (!(free_in[h] >= 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("outlook.host_free_in_s[", h, "] (", fabric.hosts()[h].name, ") is ",
                       free_in[h], ": seconds until the host is free must be a number >= 0"));
    }
  }
  if (!(outlook.run_s >= 0) || outlook.run_s == std::numeric_limits<double>::infinity()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "outlook.run_s is ", outlook.run_s,
        ": the job's expected run in seconds must be a finite number >= 0 (0: unknown)"));
  }
  for (size_t i = 0; i < outlook.waiting_nodes.size(); ++i) {
    if (outlook.waiting_nodes[i] < 1) {
      return absl::InvalidArgumentError(absl::StrCat("outlook.waiting_nodes[", i, "] is ",
                                                     outlook.waiting_nodes[i],
                                                     ": a waiting job needs at least one host"));
    }
  }
  return absl::OkStatus();
}

// The reasons candidates were turned down, in proposal order.
std::string JoinRejections(const std::vector<std::optional<std::string>>& rejected) {
  std::vector<std::string> reasons;
  for (const std::optional<std::string>& r : rejected) {
    if (r) reasons.push_back(*r);
  }
  return absl::StrJoin(reasons, "; ");
}

}  // namespace

PlacementEngine::PlacementEngine(const FabricPtr& fabric, const FabricHealth& health,
                                 const PluginRegistry& plugins, const CommModelOptions& comm)
    : PlacementEngine(fabric, health, plugins, std::make_shared<const TierIndex>(*fabric), {}) {
  steps_ = std::make_shared<const StepPredictor>(tiers_, comm);
}

std::unique_ptr<PlacementEngine> PlacementEngine::WithHealth(const FabricHealth& health) const {
  return std::unique_ptr<PlacementEngine>(
      new PlacementEngine(fabric_, health, *plugins_, tiers_, steps_));
}

PlacementEngine::PlacementEngine(FabricPtr fabric, const FabricHealth& health,
                                 const PluginRegistry& plugins,
                                 std::shared_ptr<const TierIndex> tiers,
                                 std::shared_ptr<const StepPredictor> steps)
    : fabric_(std::move(fabric)),
      plugins_(&plugins),
      health_(*fabric_, health),
      tiers_(std::move(tiers)),
      steps_(std::move(steps)),
      links_(*fabric_,
             std::vector<LinkId>(health.unhealthy_links.begin(), health.unhealthy_links.end()),
             std::vector<SwitchId>(health.unhealthy_switches.begin(),
                                   health.unhealthy_switches.end())),
      climb_(ClimbFactsOf(*tiers_)) {
  for (int32_t b = 0; b < static_cast<int32_t>(fabric_->blocks().size()); ++b) {
    if (health_.block_bad_uplinks(b) == 0) continue;
    bad_uplink_blocks_.resize(fabric_->blocks().size(), 0);
    bad_uplink_blocks_[b] = 1;
  }
}

absl::StatusOr<PlacementPlan> PlacementEngine::Place(const PlacementRequest& request,
                                                     const Occupancy& occupancy) const {
  const Fabric& fabric = *fabric_;
  const JobSpec& job = request.job;
  TP_RETURN_IF_ERROR(ValidateJobSpec(job));
  TP_RETURN_IF_ERROR(ValidateUplinkBusy(request.uplink_busy));
  TP_RETURN_IF_ERROR(ValidateOutlook(request.outlook, fabric));
  TP_RETURN_IF_ERROR(CheckTpFitsADomain(fabric, job));
  TP_ASSIGN_OR_RETURN(PlacementPolicyPtr policy, plugins_->MakePolicy(request.policy));
  TP_ASSIGN_OR_RETURN(std::vector<WeightedScorer> scorers, plugins_->MakeScorers(request.weights));
  TP_ASSIGN_OR_RETURN(Inventory inv, Inventory::Build(fabric, occupancy, health_, job));
  absl::StatusOr<PlacementPlan> plan = Choose(request, occupancy, *policy, scorers, inv);
  if (!plan.ok()) return WithWaitReason(plan.status(), inv, job, &health_);
  return plan;
}

absl::StatusOr<PlacementPlan> PlacementEngine::Choose(const PlacementRequest& request,
                                                      const Occupancy& occupancy,
                                                      const PlacementPolicy& policy,
                                                      const std::vector<WeightedScorer>& scorers,
                                                      const Inventory& inv) const {
  const Fabric& fabric = *fabric_;
  const JobSpec& job = request.job;
  const int nodes = static_cast<int>(job.nodes());
  if (inv.total_free() < nodes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("does not fit: the job needs ", nodes, " nodes with ", job.gpus_per_node,
                     " free GPUs each, and ", inv.total_free(), " of the fabric's ",
                     fabric.hosts().size(), " hosts have them"));
  }
  const RankLayout layout(job);
  const TrafficModel traffic = BuildTrafficModel(job);
  const PlacementContext ctx{fabric,
                             job,
                             layout,
                             traffic,
                             inv,
                             nodes,
                             request.seed,
                             request.uplink_busy,
                             {},
                             bad_uplink_blocks_,
                             &steps_->comm(),
                             &request.outlook};
  // 1. Candidates.
  TP_ASSIGN_OR_RETURN(std::vector<Candidate> candidates, policy.Propose(ctx));
  // 2. Shapes.
  TP_ASSIGN_OR_RETURN(CandidateShapes shapes,
                      CheckShapes(fabric, inv, job, policy.name(), candidates));
  const Router router(*tiers_, request.routing);
  const bool needs_links = std::any_of(
      scorers.begin(), scorers.end(),
      [](const WeightedScorer& ws) { return ws.weight > 0 && ws.scorer->needs_links(); });
  const ChooseStage stage{request, ctx,     scorers,       router,
                          health_, *tiers_, policy.name(), needs_links ? &links_ : nullptr};
  // 3. Sketches: the order of evaluation and the bounds that let it skip candidates.
  const std::vector<double> bound = CandidateLowerBounds(stage, climb_, candidates, shapes.order);
  // 4. Evaluation, keeping the cheapest. The winner is the one the full evaluation of every
  // candidate would pick (lowest cost, then lowest index).
  std::optional<EvaluatedCandidate> best;
  std::vector<uint8_t> scored(candidates.size(), 0);
  int evaluated = 0;
  for (size_t i : shapes.order) {
    if (shapes.same_as[i] >= 0 && scored[shapes.same_as[i]]) continue;
    // Each scorer's bound is at most its cost, so (rounding being monotone) the sum of
    // the weighted bounds is at most the weighted sum: a candidate skipped here would
    // have cost more than the best, or as much with a later index.
    if (best && (bound[i] > best->cost || (bound[i] == best->cost && i > best->index))) continue;
    ++evaluated;
    TP_ASSIGN_OR_RETURN(std::optional<EvaluatedCandidate> ev,
                        EvaluateCandidate(stage, occupancy, candidates[i], i, shapes.rejected[i]));
    if (!ev) continue;
    scored[i] = 1;
    if (!best || ev->cost < best->cost || (ev->cost == best->cost && ev->index < best->index)) {
      best = std::move(ev);
    }
  }
  if (!best) {
    return absl::ResourceExhaustedError(absl::StrCat("does not fit under policy ", policy.name(),
                                                     ": ", JoinRejections(shapes.rejected)));
  }
  // 5. Held back for faster NVLink domains, where the policy asks.
  TP_RETURN_IF_ERROR(HoldForFasterDomains(stage, policy, inv, *best));
  // 6. The plan, with its explanation.
  PlacementPlan plan =
      MakePlan(stage, links_, *steps_, std::move(candidates[best->index]), *std::move(best));
  plan.candidates_considered = static_cast<int>(candidates.size());
  plan.candidates_evaluated = evaluated;
  return plan;
}

absl::Status PlacementEngine::HoldForFasterDomains(const ChooseStage& stage,
                                                   const PlacementPolicy& policy,
                                                   const Inventory& inv,
                                                   const EvaluatedCandidate& best) const {
  const PlacementRequest& request = stage.request;
  const JobSpec& job = request.job;
  if (!policy.waits_for_faster_domains() || !request.outlook.known() ||
      !(request.outlook.run_s > 0) || job.mode != ConstraintMode::kHard || !inv.nvlink_level()) {
    return absl::OkStatus();
  }
  const std::optional<StepOn> then = StepOnEmptyFabric(request);
  if (!then) return absl::OkStatus();
  const StepOn now{
      steps_->comm().LinkStepSeconds(
          job, best.traffic, BusiestCableSeconds(*fabric_, FluidLinkLoads(stage, links_, best))),
      best.footprint.nvlink_domains_used};
  const double reference_s =
      steps_->Predict(job, best.traffic, request.routing.rail_local).reference_s;
  if (std::optional<FasterDomains> w =
          WaitForFasterDomains(*fabric_, inv, job, request.outlook, reference_s, now, *then)) {
    return absl::ResourceExhaustedError(DescribeWait(*w));
  }
  return absl::OkStatus();
}

std::optional<StepOn> PlacementEngine::StepOnEmptyFabric(const PlacementRequest& request) const {
  // Everything `alone` below is made of: the policy, the spec, the routing and the weights.
  std::string key = absl::StrCat(request.policy, " ", FormatJobSpec(request.job),
                                 request.routing.rail_local ? " pxn" : " no-pxn");
  for (const auto& [scorer, weight] : request.weights)
    absl::StrAppend(&key, " ", scorer, "=", weight);
  {
    absl::MutexLock lock(&empty_->mu);
    if (auto it = empty_->steps.find(key); it != empty_->steps.end()) return it->second;
  }
  PlacementRequest alone;
  alone.job = request.job;
  alone.policy = request.policy;
  alone.routing = request.routing;
  alone.weights = request.weights;
  alone.link_loads = true;  // fluid ECMP: the expected spread (the seed stays the default)
  std::optional<StepOn> step;
  if (absl::StatusOr<PlacementPlan> plan = Place(alone, Occupancy(*fabric_)); plan.ok()) {
    step = StepOn{steps_->comm().LinkStepSeconds(plan->job, plan->traffic,
                                                 BusiestCableSeconds(*fabric_, plan->links)),
                  plan->footprint.nvlink_domains_used};
  }
  absl::MutexLock lock(&empty_->mu);
  empty_->steps.emplace(key, step);
  return step;
}

}  // namespace topoplace::sched
