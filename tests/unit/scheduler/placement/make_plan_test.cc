// The last stage (scheduler/placement/make_plan.h) on superpod-4su: the plan keeps the
// winner's hosts, ranks and traffic, its explanation's rows add up to its cost, link loads
// are there only when the request asks, a relaxed max_tier is noted, and the stages
// composed give the engine's own plan.
#include "scheduler/placement/make_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "scheduler/placement/evaluate_candidate.h"
#include "tests/unit/scheduler/placement/choose_stage_fixture.h"

namespace topoplace::sched {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

PlacementPlan PlanOf(const testing::ChooseStageFixture& f, Candidate candidate) {
  std::optional<std::string> rejected;
  absl::StatusOr<std::optional<EvaluatedCandidate>> ev =
      EvaluateCandidate(f.stage(), f.occupancy(), candidate, 0, rejected);
  EXPECT_TRUE(ev.ok() && ev->has_value());
  return MakePlan(f.stage(), f.links(), f.steps(), std::move(candidate), **std::move(ev));
}

TEST(MakePlanTest, ThePlanKeepsTheWinnerAndItsExplanationAddsUpToItsCost) {
  testing::ChooseStageFixture f("superpod-4su", "tp=8,pp=1,dp=4");
  const std::vector<HostId> hosts = f.AcrossTwoBlocks(2);
  const PlacementPlan plan = PlanOf(f, {hosts, "two blocks"});
  EXPECT_EQ(plan.policy, "test");
  EXPECT_EQ(plan.how, "two blocks");
  EXPECT_EQ(plan.node_hosts, hosts);
  EXPECT_EQ(plan.ranks.size(), 32u);
  EXPECT_EQ(plan.footprint.blocks_used, 2);
  EXPECT_GT(plan.traffic.spine_bytes(), 0);
  EXPECT_GT(plan.step.reference_s, 0);
  EXPECT_TRUE(plan.links.empty());  // not asked for
  ASSERT_EQ(plan.explain.size(), f.stage().scorers.size());
  double sum = 0;
  for (const auto& row : plan.explain) sum += row.weighted;
  EXPECT_DOUBLE_EQ(plan.cost, sum);
  EXPECT_FALSE(plan.relaxed);
}

TEST(MakePlanTest, LinkLoadsAreThereWhenTheRequestAsks) {
  testing::ChooseStageFixture f("superpod-4su", "tp=8,pp=1,dp=4", {}, /*link_loads=*/true);
  const PlacementPlan plan = PlanOf(f, {f.AcrossTwoBlocks(2), "two blocks"});
  ASSERT_FALSE(plan.links.empty());
  double up = 0;
  for (const LinkLoad& load : plan.links) up += load.up_bytes;
  EXPECT_GT(up, plan.traffic.spine_bytes());  // NIC cables and leaf uplinks as well
}

TEST(MakePlanTest, ARelaxedMaxTierIsNoted) {
  testing::ChooseStageFixture f("superpod-4su", "tp=8,pp=1,dp=4,max_tier=block,mode=soft");
  const PlacementPlan plan = PlanOf(f, {f.AcrossTwoBlocks(2), "two blocks"});
  EXPECT_TRUE(plan.relaxed);
  EXPECT_THAT(plan.notes, Contains(HasSubstr("relaxed (soft): max_tier=block")));
}

TEST(MakePlanTest, TheStagesComposedGiveTheEnginesPlan) {
  testing::ChooseStageFixture f("superpod-4su", "tp=8,pp=1,dp=4");
  PlacementRequest request;
  request.job = f.job();
  request.policy = "first-fit";
  absl::StatusOr<PlacementPlan> engine =
      PlacementEngine(::topoplace::testing::Preset("superpod-4su")).Place(request, f.occupancy());
  ASSERT_TRUE(engine.ok()) << engine.status();
  const PlacementPlan plan = PlanOf(f, {engine->node_hosts, engine->how});
  EXPECT_EQ(plan.node_hosts, engine->node_hosts);
  EXPECT_DOUBLE_EQ(plan.cost, engine->cost);
  EXPECT_EQ(plan.traffic.spine_bytes(), engine->traffic.spine_bytes());
  EXPECT_EQ(plan.step.slowdown, engine->step.slowdown);
}

}  // namespace
}  // namespace topoplace::sched
