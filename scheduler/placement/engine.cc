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
#include "scheduler/placement/candidate_shapes.h"
#include "scheduler/placement/candidate_sketch.h"
#include "scheduler/placement/lower_bound.h"
#include "scheduler/traffic/traffic_report.h"

namespace topoplace::sched {
namespace {

// Why a candidate breaks the job's max_tier, or nullopt if it does not.
std::optional<std::string> MaxTierViolation(const JobSpec& job, const PlanFootprint& fp,
                                            const TrafficReport& traffic) {
  switch (job.max_tier) {
    case MaxTier::kNvlink:
      if (fp.nvlink_domains_used > 1) {
        return absl::StrCat("max_tier=nvlink: plan spans ", fp.nvlink_domains_used,
                            " NVLink domains");
      }
      // Where every host is its own domain, footprints count no NVLink domains.
      if (fp.nvlink_domains_used == 0 && fp.nodes > 1) {
        return absl::StrCat("max_tier=nvlink: plan spans ", fp.nodes,
                            " hosts and NVLink stays inside each host of this fabric");
      }
      return std::nullopt;
    case MaxTier::kLeaf:
      if (fp.blocks_used > 1 || traffic.max_hops > SwitchHops(Tier::kLeaf)) {
        return absl::StrCat("max_tier=leaf: plan spans ", fp.blocks_used,
                            " block(s) with paths of ", traffic.max_hops, " switches");
      }
      return std::nullopt;
    case MaxTier::kBlock:
      if (fp.blocks_used > 1) {
        return absl::StrCat("max_tier=block: plan spans ", fp.blocks_used, " blocks");
      }
      return std::nullopt;
    case MaxTier::kPod:
      if (fp.pods_used > 1) {
        return absl::StrCat("max_tier=pod: plan spans ", fp.pods_used, " pods");
      }
      return std::nullopt;
    case MaxTier::kCluster:
      return std::nullopt;
  }
  return std::nullopt;
}

// Lower bounds add up to a bound on the cost only when no weight is negative.
bool NoNegativeWeights(const std::vector<WeightedScorer>& scorers) {
  return std::all_of(scorers.begin(), scorers.end(),
                     [](const WeightedScorer& ws) { return ws.weight >= 0; });
}

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
// entry per host, a NaN or negative time, or a waiting job of no hosts is turned down.
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

// The evaluated state of one candidate, kept for the winner.
struct Evaluated {
  size_t index = 0;
  std::vector<RankSlot> slots;
  std::unique_ptr<Attachment[]> attachments;  // per slot; the link-load walk reuses them
  TrafficReport traffic;
  PlanFootprint footprint;
  std::vector<ScoreResult> scores;
  double cost = 0;
  std::optional<std::string> relaxed;
};

// What every stage of Choose reads: the request, its context and scorers, and the engine's
// precomputed views.
struct Stage {
  const PlacementRequest& request;
  const PlacementContext& ctx;
  const std::vector<WeightedScorer>& scorers;
  const Router& router;
  const HealthView& health;
  const TierIndex& tiers;
  absl::string_view policy;
};

// Per candidate, a lower bound on its cost from its sketch, and `order` sorted by it
// (stable): with several candidates they are evaluated cheapest bound first, and one whose
// bound reaches the best cost so far cannot win. All 0, order untouched, for one candidate
// or when a negative weight makes the bounds no bound.
std::vector<double> LowerBounds(const Stage& stage, const ClimbFacts& climb,
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

// Candidate `index` in full: its rank map, traffic, footprint and scores, or nullopt with
// `rejected` saying why when it breaks a hard rule (no network path, a hard max_tier).
// Internal when the policy chose a host the rank map cannot use.
absl::StatusOr<std::optional<Evaluated>> Evaluate(const Stage& stage, const Occupancy& occupancy,
                                                  const Candidate& cand, size_t index,
                                                  std::optional<std::string>& rejected) {
  const PlacementContext& ctx = stage.ctx;
  const JobSpec& job = ctx.job;
  absl::StatusOr<std::vector<RankSlot>> slots =
      MapRanks(ctx.fabric, job, cand.node_hosts, occupancy);
  if (!slots.ok()) {
    return absl::InternalError(absl::StrCat("policy ", stage.policy,
                                            " chose an unusable host: ", slots.status().message()));
  }
  Evaluated ev;
  ev.index = index;
  ev.slots = *std::move(slots);
  ev.attachments = stage.tiers.Attach(ev.slots);
  const std::span<const Attachment> attachments(ev.attachments.get(), ev.slots.size());
  ev.traffic = EvaluateTraffic(ctx.layout, ctx.traffic, ev.slots, attachments, stage.router,
                               job.gpus_per_node);
  if (ev.traffic.unreachable_bytes > 0) {
    rejected = absl::StrCat(
        cand.how, ": ", ev.traffic.unreachable_bytes,
        " bytes/iteration between GPUs with no network path (cross-rail traffic on a "
        "rail-plane fabric needs rail-local forwarding (PXN), which is off: --no-rail-local "
        "or PlacementRequest::routing)");
    return std::nullopt;
  }
  ev.footprint = ComputeFootprint(ctx.inventory, stage.health, ev.slots, attachments);
  ev.relaxed = MaxTierViolation(job, ev.footprint, ev.traffic);
  if (ev.relaxed && job.mode == ConstraintMode::kHard) {
    rejected = absl::StrCat(cand.how, ": ", *ev.relaxed, " (hard)");
    return std::nullopt;
  }
  const ScoreInput in{ctx, ev.traffic, ev.footprint, stage.request.uplink_busy};
  for (const WeightedScorer& ws : stage.scorers) {
    ev.scores.push_back(ws.scorer->Score(in));
    ev.cost += ws.weight * ev.scores.back().normalized;
  }
  // A plan that keeps max_tier always beats one that had to relax it.
  if (ev.relaxed) ev.cost += 1e6;
  return ev;
}

// The winner `best` (candidate `chosen`) as a plan: its hosts, ranks and traffic, the bytes
// per link when the request asks, its predicted step, the spine-bytes lower bound and each
// scorer's part of the cost.
PlacementPlan MakePlan(const Stage& stage, const LinkIndex& links, const StepPredictor& steps,
                       Candidate chosen, Evaluated best) {
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
  const Stage stage{request, ctx, scorers, router, health_, *tiers_, policy.name()};
  // 3. Sketches: the order of evaluation and the bounds that let it skip candidates.
  const std::vector<double> bound = LowerBounds(stage, climb_, candidates, shapes.order);
  // 4. Evaluation, keeping the cheapest. The winner is the one the full evaluation of every
  // candidate would pick (lowest cost, then lowest index).
  std::optional<Evaluated> best;
  std::vector<uint8_t> scored(candidates.size(), 0);
  int evaluated = 0;
  for (size_t i : shapes.order) {
    if (shapes.same_as[i] >= 0 && scored[shapes.same_as[i]]) continue;
    // Each scorer's bound is at most its cost, so (rounding being monotone) the sum of
    // the weighted bounds is at most the weighted sum: a candidate skipped here would
    // have cost more than the best, or as much with a later index.
    if (best && (bound[i] > best->cost || (bound[i] == best->cost && i > best->index))) continue;
    ++evaluated;
    TP_ASSIGN_OR_RETURN(std::optional<Evaluated> ev,
                        Evaluate(stage, occupancy, candidates[i], i, shapes.rejected[i]));
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
  // 5. The plan, with its explanation.
  PlacementPlan plan =
      MakePlan(stage, links_, *steps_, std::move(candidates[best->index]), *std::move(best));
  plan.candidates_considered = static_cast<int>(candidates.size());
  plan.candidates_evaluated = evaluated;
  return plan;
}

}  // namespace topoplace::sched
