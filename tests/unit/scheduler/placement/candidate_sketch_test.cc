#include "scheduler/placement/candidate_sketch.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/builtin/builtin_plugins.h"
#include "scheduler/framework/scorer.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/mapping/rank_layout.h"
#include "scheduler/placement/engine.h"
#include "scheduler/scorers/builtin_scorers.h"
#include "scheduler/state/occupancy.h"
#include "scheduler/traffic/traffic_report.h"
#include "topology/generate/reference_fabrics.h"
#include "topology/io/fabric_file.h"

namespace topoplace::sched {
namespace {

// Every candidate every policy proposes for `job` on `preset` over a few backgrounds:
// its sketch must equal the full evaluation on the exact fields and stay at or below it on
// the bounded ones, and so must every scorer's LowerBound against its Score.
void ExpectSketchesBoundEvaluations(const std::string& preset, const std::string& job_text,
                                    bool expect_uplink_known = true) {
  SCOPED_TRACE(absl::StrCat(preset, " ", job_text));
  const FabricPtr fabric = *GeneratePreset(preset);
  const TierIndex tiers(*fabric);
  const ClimbFacts climb = ClimbFactsOf(tiers);
  const HealthView health(*fabric, FabricHealth{});
  const JobSpec job = *ParseJobSpec(job_text);
  const RankLayout layout(job);
  const TrafficModel traffic = BuildTrafficModel(job);
  const Router router(tiers, RoutingOptions{.rail_local = true});
  std::vector<WeightedScorer> scorers = *BuiltinPlugins().MakeScorers({});
  // Running jobs' load on every switch's uplinks, for the uplink-load scorer's bound.
  std::mt19937 random(11);
  std::uniform_real_distribution<double> share(0.0, 1.2);
  std::vector<double> busy(fabric->switches().size());
  for (double& b : busy) b = share(random);
  int compared = 0, crossing = 0, uplink_known = 0;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const Occupancy occupancy = RandomBackgroundLoad(*fabric, 0.5, seed);
    const Inventory inv = *Inventory::Build(*fabric, occupancy, health, job);
    const PlacementContext ctx{*fabric, job, layout, traffic, inv, static_cast<int>(job.nodes()),
                               seed,    busy};
    const CandidateSketcher sketcher(ctx, health, tiers, climb, router.options());
    const ScorerPtr uplink = MakeUplinkLoadScorer();
    for (const std::string& name : BuiltinPlugins().PolicyNames()) {
      absl::StatusOr<std::vector<Candidate>> candidates =
          (*BuiltinPlugins().MakePolicy(name))->Propose(ctx);
      if (!candidates.ok()) continue;
      for (const Candidate& cand : *candidates) {
        SCOPED_TRACE(absl::StrCat(name, " seed ", seed, ": ", cand.how));
        absl::StatusOr<std::vector<RankSlot>> slots =
            MapRanks(*fabric, job, cand.node_hosts, occupancy);
        if (!slots.ok()) continue;  // a split TP group: the engine turns it down first
        const std::unique_ptr<Attachment[]> att = tiers.Attach(*slots);
        const std::span<const Attachment> attachments(att.get(), slots->size());
        const TrafficReport full =
            EvaluateTraffic(layout, traffic, *slots, attachments, router, job.gpus_per_node);
        const PlanFootprint fp = ComputeFootprint(inv, health, *slots, attachments);
        const CandidateSketch sketch = sketcher.Sketch(cand.node_hosts);

        EXPECT_EQ(sketch.footprint.nodes, fp.nodes);
        EXPECT_EQ(sketch.footprint.blocks_used, fp.blocks_used);
        EXPECT_EQ(sketch.footprint.pods_used, fp.pods_used);
        EXPECT_EQ(sketch.footprint.partial_blocks_before, fp.partial_blocks_before);
        EXPECT_EQ(sketch.footprint.partial_blocks_after, fp.partial_blocks_after);
        EXPECT_EQ(sketch.footprint.degraded_hosts, fp.degraded_hosts);
        for (Dim d : kAllDims) {
          const GroupSpread& s = sketch.traffic.spread[static_cast<int>(d)];
          const GroupSpread& f = full.spread[static_cast<int>(d)];
          if (layout.stride(d) % job.gpus_per_node == 0) {
            EXPECT_EQ(s.mean_blocks, f.mean_blocks) << DimName(d);  // bit for bit
            EXPECT_EQ(s.max_blocks, f.max_blocks) << DimName(d);
          } else {
            EXPECT_LE(s.mean_blocks, f.mean_blocks) << DimName(d);
          }
        }
        // Every dimension is node-aligned and every pair's tier known from its blocks and
        // pods: the bytes are the walk's, bit for bit, tier by tier.
        for (Tier t : {Tier::kSpine, Tier::kCore}) {
          EXPECT_EQ(sketch.traffic.tier_bytes[static_cast<int>(t)],
                    full.tier_bytes[static_cast<int>(t)])
              << TierName(t);
        }
        EXPECT_EQ(sketch.traffic.spine_bytes(), full.spine_bytes());
        EXPECT_LE(sketch.traffic.max_hops, full.max_hops);
        crossing += full.spine_bytes() > 0 ? 1 : 0;

        const ScoreInput exact{ctx, full, fp, busy};
        const ScoreInput bound{ctx, sketch.traffic, sketch.footprint, busy};
        for (const WeightedScorer& ws : scorers) {
          EXPECT_LE(ws.scorer->LowerBound(bound), ws.scorer->Score(exact).normalized)
              << ws.scorer->name();
        }
        if (!sketch.traffic.network.leaf_up_sparse.empty()) {
          // Known at the node level: the bound is the cost, but for rounding.
          ++uplink_known;
          EXPECT_NEAR(uplink->LowerBound(bound), uplink->Score(exact).normalized, 1e-6);
        }
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 10);
  EXPECT_GT(crossing, 0) << "no candidate crossed blocks: the byte and hop bounds went unchecked";
  if (expect_uplink_known) {
    EXPECT_GT(uplink_known, 0) << "the uplink load was never known at the node level";
  }
}

TEST(CandidateSketch, MatchesTheFullEvaluationOnRailBlocks) {
  ExpectSketchesBoundEvaluations("rail-28k", "tp=8,pp=8,dp=16,model=175b");
}

TEST(CandidateSketch, MatchesTheFullEvaluationAcrossPodsOfAThreeTierClos) {
  ExpectSketchesBoundEvaluations("clos3-100k", "tp=8,pp=16,dp=64,model=405b");
}

TEST(CandidateSketch, MatchesTheFullEvaluationForMoeOnNvlinkRacks) {
  ExpectSketchesBoundEvaluations("gb200-nvl72",
                                 "tp=4,pp=4,dp=1,ep=8,gpus_per_node=4,model=deepseek-v3");
}

TEST(CandidateSketch, ReferenceFabricsKeepBlocksUnderTheirOwnLeavesAndPodsUnderTheirSpines) {
  for (const char* preset : {"rail-28k", "clos3-100k", "superpod-4su", "gb200-nvl72"}) {
    const FabricPtr fabric = *GeneratePreset(preset);
    const ClimbFacts facts = ClimbFactsOf(TierIndex(*fabric));
    EXPECT_TRUE(facts.blocks_reach_spine) << preset;
    if (fabric->pods().size() > 1) {
      EXPECT_TRUE(facts.pods_reach_core) << preset;
    }
  }
}

// Two blocks of two hosts, two rails: NIC r of every host on its block's rail-r leaf,
// each leaf under both spines. With `stray`, b01-n000's second NIC lands on b00's leaf
// instead, so that leaf carries hosts of two blocks.
std::string TwoBlocks(bool stray) {
  std::string hosts, nics, gpus, links;
  for (const char* b : {"b00", "b01"}) {
    for (int r = 0; r < 2; ++r) {
      for (const char* s : {"s00", "s01"}) {
        absl::StrAppend(&links, R"({"a": "leaf-)", b, "-r", r, R"(", "b": ")", s,
                        R"(", "speed_gbps": 400},)", "\n");
      }
    }
    for (int n = 0; n < 2; ++n) {
      const std::string host = absl::StrCat(b, "-n", n);
      absl::StrAppend(&hosts, R"({"name": ")", host, R"("},)");
      for (int r = 0; r < 2; ++r) {
        absl::StrAppend(&nics, R"({"host": ")", host, R"(", "name": "mlx5_)", r,
                        R"(", "speed_gbps": 400},)");
        absl::StrAppend(&gpus, R"({"host": ")", host, R"(", "index": )", r, R"(, "nic": "mlx5_)", r,
                        R"("},)");
        const bool crossed = stray && host == "b01-n0" && r == 1;
        absl::StrAppend(&links, R"({"a": ")", host, "/mlx5_", r, R"(", "b": "leaf-)",
                        crossed ? "b00" : b, "-r", r, R"(", "speed_gbps": 400},)", "\n");
      }
    }
  }
  const auto trim = [](std::string& list) { list.pop_back(); };
  trim(hosts), trim(nics), trim(gpus);
  links.resize(links.size() - 2);
  return absl::StrCat(R"({"format": "topoplace.fabric/v1", "name": "two-blocks", "version": 1,)",
                      R"("hosts": [)", hosts, R"(], "nics": [)", nics, R"(], "gpus": [)", gpus,
                      R"(], "switches": [{"name": "s00", "tier": 2}, {"name": "s01", "tier": 2},)",
                      R"({"name": "leaf-b00-r0", "tier": 1}, {"name": "leaf-b00-r1", "tier": 1},)",
                      R"({"name": "leaf-b01-r0", "tier": 1}, {"name": "leaf-b01-r1", "tier": 1}],)",
                      R"("links": [)", links, "]}");
}

// A leaf cabled to hosts of two blocks: GPUs of different blocks may meet at that leaf,
// so no bound on bytes or hops may be drawn from blocks.
TEST(CandidateSketch, ALeafSharedByTwoBlocksGivesNoByteOrHopBound) {
  absl::StatusOr<FabricPtr> clean = ParseFabricJson(TwoBlocks(false), "two-blocks");
  ASSERT_TRUE(clean.ok()) << clean.status();
  EXPECT_TRUE(ClimbFactsOf(TierIndex(**clean)).blocks_reach_spine);
  absl::StatusOr<FabricPtr> stray = ParseFabricJson(TwoBlocks(true), "two-blocks-stray");
  ASSERT_TRUE(stray.ok()) << stray.status();
  ASSERT_GE((*stray)->blocks().size(), 2u);
  EXPECT_FALSE(ClimbFactsOf(TierIndex(**stray)).blocks_reach_spine);
  EXPECT_FALSE(ClimbFactsOf(TierIndex(**stray)).pods_reach_core);
}

// Candidates the policy proposes twice (the same hosts by two constructions) or that
// cannot beat the best are not evaluated again; the plan is the one full evaluation of
// every candidate gives (golden plans: tests/testing/check_golden_plans.sh).
TEST(CandidateSketch, TheEngineSkipsCandidatesThatCannotWin) {
  const FabricPtr fabric = *GeneratePreset("rail-28k");
  const PlacementEngine engine(fabric);
  PlacementRequest req;
  req.job = *ParseJobSpec("tp=8,pp=16,dp=64,model=405b");
  int considered = 0, evaluated = 0;
  for (uint64_t seed = 1000; seed < 1016; ++seed) {
    absl::StatusOr<PlacementPlan> plan =
        engine.Place(req, RandomBackgroundLoad(*fabric, 0.6, seed));
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_GE(plan->candidates_evaluated, 1);
    EXPECT_LE(plan->candidates_evaluated, plan->candidates_considered);
    considered += plan->candidates_considered;
    evaluated += plan->candidates_evaluated;
  }
  EXPECT_LT(evaluated, considered);
}

}  // namespace
}  // namespace topoplace::sched
