#include "scheduler/placement/engine.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/framework/footprint.h"
#include "scheduler/framework/inventory.h"
#include "scheduler/framework/nvlink_domains.h"
#include "scheduler/framework/wait_reason.h"
#include "scheduler/mapping/rank_layout.h"
#include "scheduler/placement/candidate_sketch.h"
#include "scheduler/placement/lower_bound.h"
#include "scheduler/traffic/traffic_report.h"
#include "topology/base/status_macros.h"

namespace topoplace::sched {
namespace {

// Why a candidate breaks the job's max_tier, or nullopt if it does not.
std::optional<std::string> MaxTierViolation(const JobSpec& job, const PlanFootprint& fp,
                                            const TrafficReport& traffic) {
  switch (job.max_tier) {
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
  TP_ASSIGN_OR_RETURN(std::vector<Candidate> candidates, policy.Propose(ctx));

  const Router router(*tiers_, request.routing);
  // Shape checks, in proposal order. Consecutive node slots carry the TP groups
  // (RankOrder): where the policy's order would split one across NVLink domains, hosts of
  // one domain are put side by side.
  std::vector<std::optional<std::string>> rejected(candidates.size());
  std::vector<size_t> order;
  // same_as[i]: an earlier candidate with the very same node hosts, or -1. Its evaluation
  // would be the same, so the later one cannot win once the earlier one has a cost.
  std::vector<int> same_as(candidates.size(), -1);
  for (size_t i = 0; i < candidates.size(); ++i) {
    Candidate& cand = candidates[i];
    if (static_cast<int>(cand.node_hosts.size()) != nodes) {
      return absl::InternalError(absl::StrCat("policy ", policy.name(), " proposed ",
                                              cand.node_hosts.size(), " hosts for ", nodes,
                                              " nodes"));
    }
    if (inv.nvlink_level() && TpDomainViolation(fabric, inv, job, cand.node_hosts)) {
      GroupByNvlinkDomain(fabric, cand.node_hosts);
    }
    if (std::optional<std::string> split = TpDomainViolation(fabric, inv, job, cand.node_hosts)) {
      rejected[i] = absl::StrCat(cand.how, ": ", *split);
      continue;
    }
    for (size_t k : order) {
      if (candidates[k].node_hosts == cand.node_hosts) {
        same_as[i] = static_cast<int>(k);
        break;
      }
    }
    order.push_back(i);
  }
  // With several candidates, each gets a lower bound on its cost from its sketch; they are
  // evaluated cheapest bound first, and one whose bound reaches the best cost so far is
  // skipped: it could not have won. The winner is the one the full evaluation of every
  // candidate would pick (lowest cost, then lowest index).
  std::vector<double> bound(candidates.size(), 0);
  if (order.size() > 1 && NoNegativeWeights(scorers)) {
    const CandidateSketcher sketcher(ctx, health_, *tiers_, climb_, request.routing);
    for (size_t i : order) {
      const CandidateSketch sketch = sketcher.Sketch(candidates[i].node_hosts);
      const ScoreInput in{ctx, sketch.traffic, sketch.footprint, request.uplink_busy};
      for (const WeightedScorer& ws : scorers) bound[i] += ws.weight * ws.scorer->LowerBound(in);
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return bound[a] < bound[b]; });
  }
  std::optional<Evaluated> best;
  std::vector<uint8_t> scored(candidates.size(), 0);
  int evaluated = 0;
  for (size_t i : order) {
    if (same_as[i] >= 0 && scored[same_as[i]]) continue;
    // Each scorer's bound is at most its cost, so (rounding being monotone) the sum of
    // the weighted bounds is at most the weighted sum: a candidate skipped here would
    // have cost more than the best, or as much with a later index.
    if (best && (bound[i] > best->cost || (bound[i] == best->cost && i > best->index))) continue;
    Candidate& cand = candidates[i];
    ++evaluated;
    absl::StatusOr<std::vector<RankSlot>> slots = MapRanks(fabric, job, cand.node_hosts, occupancy);
    if (!slots.ok()) {
      return absl::InternalError(absl::StrCat(
          "policy ", policy.name(), " chose an unusable host: ", slots.status().message()));
    }
    Evaluated ev;
    ev.index = i;
    ev.slots = *std::move(slots);
    ev.attachments = tiers_->Attach(ev.slots);
    const std::span<const Attachment> attachments(ev.attachments.get(), ev.slots.size());
    ev.traffic = EvaluateTraffic(layout, traffic, ev.slots, attachments, router, job.gpus_per_node);
    if (ev.traffic.unreachable_bytes > 0) {
      rejected[i] = absl::StrCat(
          cand.how, ": ", ev.traffic.unreachable_bytes,
          " bytes/iteration between GPUs with no network path (cross-rail traffic on a "
          "rail-plane fabric needs rail-local forwarding (PXN), which is off: --no-rail-local "
          "or PlacementRequest::routing)");
      continue;
    }
    ev.footprint = ComputeFootprint(inv, health_, ev.slots, attachments);
    ev.relaxed = MaxTierViolation(job, ev.footprint, ev.traffic);
    if (ev.relaxed && job.mode == ConstraintMode::kHard) {
      rejected[i] = absl::StrCat(cand.how, ": ", *ev.relaxed, " (hard)");
      continue;
    }
    const ScoreInput in{ctx, ev.traffic, ev.footprint, request.uplink_busy};
    for (const WeightedScorer& ws : scorers) {
      ev.scores.push_back(ws.scorer->Score(in));
      ev.cost += ws.weight * ev.scores.back().normalized;
    }
    // A plan that keeps max_tier always beats one that had to relax it.
    if (ev.relaxed) ev.cost += 1e6;
    scored[i] = 1;
    if (!best || ev.cost < best->cost || (ev.cost == best->cost && ev.index < best->index)) {
      best = std::move(ev);
    }
  }
  if (!best) {
    return absl::ResourceExhaustedError(
        absl::StrCat("does not fit under policy ", policy.name(), ": ", JoinRejections(rejected)));
  }

  PlacementPlan plan;
  plan.policy = std::string(policy.name());
  plan.fabric = fabric.name();
  plan.job = job;
  plan.routing = request.routing;
  plan.how = candidates[best->index].how;
  plan.node_hosts = std::move(candidates[best->index].node_hosts);
  plan.ranks = std::move(best->slots);
  plan.traffic_model = traffic;
  plan.traffic = std::move(best->traffic);
  if (request.link_loads) {
    const TrafficReport tallied =
        EvaluateTraffic(layout, traffic, plan.ranks, {best->attachments.get(), plan.ranks.size()},
                        router, job.gpus_per_node, /*tally_network=*/true,
                        /*tally_flows=*/request.ecmp.mode == EcmpMode::kHash);
    plan.links = LinkLoads(links_, plan.ranks, tallied, request.ecmp);
  }
  plan.footprint = best->footprint;
  plan.step = steps_->Predict(job, plan.traffic, request.routing.rail_local);
  plan.spine_bytes_lower_bound = SpineBytesLowerBound(layout, traffic, inv, nodes);
  plan.candidates_considered = static_cast<int>(candidates.size());
  plan.candidates_evaluated = evaluated;
  for (size_t s = 0; s < scorers.size(); ++s) {
    const ScoreResult& r = best->scores[s];
    plan.explain.push_back({std::string(scorers[s].scorer->name()),
                            std::string(scorers[s].scorer->unit()), r.raw, r.normalized,
                            scorers[s].weight, scorers[s].weight * r.normalized});
    plan.cost += plan.explain.back().weighted;
  }
  plan.relaxed = best->relaxed.has_value();
  if (best->relaxed) plan.notes.push_back(absl::StrCat("relaxed (soft): ", *best->relaxed));
  return plan;
}

}  // namespace topoplace::sched
