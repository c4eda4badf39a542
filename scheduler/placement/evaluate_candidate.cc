#include "scheduler/placement/evaluate_candidate.h"

#include <span>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/mapping/rank_map.h"

namespace topoplace::sched {

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

std::vector<LinkLoad> FluidLinkLoads(const ChooseStage& stage, const LinkIndex& links,
                                     const EvaluatedCandidate& ev) {
  const PlacementContext& ctx = stage.ctx;
  const TrafficReport tallied =
      EvaluateTraffic(ctx.layout, ctx.traffic, ev.slots, {ev.attachments.get(), ev.slots.size()},
                      stage.router, ctx.job.gpus_per_node, /*tally_network=*/true);
  return LinkLoads(links, ev.slots, tallied);
}

// Candidate `index` in full: its rank map, traffic, footprint and scores, or nullopt with
// `rejected` saying why when it breaks a hard rule (no network path, a hard max_tier).
// Internal when the policy chose a host the rank map cannot use.
absl::StatusOr<std::optional<EvaluatedCandidate>> EvaluateCandidate(
    const ChooseStage& stage, const Occupancy& occupancy, const Candidate& cand, size_t index,
    std::optional<std::string>& rejected) {
  const PlacementContext& ctx = stage.ctx;
  const JobSpec& job = ctx.job;
  absl::StatusOr<std::vector<RankSlot>> slots =
      MapRanks(ctx.fabric, job, cand.node_hosts, occupancy);
  if (!slots.ok()) {
    return absl::InternalError(absl::StrCat("policy ", stage.policy,
                                            " chose an unusable host: ", slots.status().message()));
  }
  EvaluatedCandidate ev;
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
  std::vector<LinkLoad> links;
  if (stage.links != nullptr) links = FluidLinkLoads(stage, *stage.links, ev);
  const ScoreInput in{ctx, ev.traffic, ev.footprint, stage.request.uplink_busy, links};
  for (const WeightedScorer& ws : stage.scorers) {
    ev.scores.push_back(ws.scorer->Score(in));
    ev.cost += ws.weight * ev.scores.back().normalized;
  }
  // A plan that keeps max_tier always beats one that had to relax it.
  if (ev.relaxed) ev.cost += 1e6;
  return ev;
}

}  // namespace topoplace::sched
