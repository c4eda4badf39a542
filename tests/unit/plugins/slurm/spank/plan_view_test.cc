#include "plugins/slurm/spank/plan_view.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace topoplace::slurm {
namespace {

using ::testing::HasSubstr;

// Two nodes, two ranks each, listed out of rank order (the parser sorts them).
constexpr char kPlan[] = R"({
  "schema": "topoplace.plan/v1", "hosts": ["b01-n002", "b01-n000"],
  "ranks": [{"rank": 2, "host": "b01-n000", "gpu": 0, "nic": "mlx5_0"},
            {"rank": 0, "host": "b01-n002", "gpu": 0, "nic": "mlx5_0"},
            {"rank": 1, "host": "b01-n002", "gpu": 1, "nic": "mlx5_1"},
            {"rank": 3, "host": "b01-n000", "gpu": 1, "nic": "mlx5_1"}],
  "spine_bytes": 0, "spine_bytes_lower_bound": 0,
  "footprint": {"nodes": 2, "leaves": 2, "blocks": 1, "pods": 1}})";

TEST(ParsePlanJson, ReadsRanksInRankOrderAndTheFootprint) {
  absl::StatusOr<PlanView> plan = ParsePlanJson(kPlan);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->ranks.size(), 4u);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(plan->ranks[r].rank, r);
  EXPECT_EQ(plan->ranks[2].host, "b01-n000");
  EXPECT_EQ(plan->hosts, (std::vector<std::string>{"b01-n002", "b01-n000"}));
  EXPECT_EQ(plan->blocks, 1);
}

TEST(ParsePlanJson, RejectsWhatIsNotAPlan) {
  for (const char* text :
       {"", "[]", R"({"schema": "other"})",
        R"({"schema": "topoplace.plan/v1", "hosts": [], "ranks": []})",
        R"({"schema": "topoplace.plan/v1", "hosts": ["a"], "ranks": [{"rank": "x"}]})"}) {
    absl::StatusOr<PlanView> plan = ParsePlanJson(text);
    EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument) << text;
  }
}

TEST(HostfileText, OneLinePerRankInRankOrderWithTheNodeMap) {
  absl::StatusOr<PlanView> plan = ParsePlanJson(kPlan);
  ASSERT_TRUE(plan.ok());
  absl::StatusOr<plugins::NodeNameMap> map = plugins::NodeNameMap::Parse("b01-n000 gpu17\n", "map");
  ASSERT_TRUE(map.ok());
  EXPECT_EQ(HostfileText(*plan, *map), "b01-n002\nb01-n002\ngpu17\ngpu17\n");
}

TEST(SummaryLine, NamesNodesBlocksAndSpineBytes) {
  absl::StatusOr<PlanView> plan = ParsePlanJson(kPlan);
  ASSERT_TRUE(plan.ok());
  plan->spine_bytes = 2.5e9;  // 2.50 GB
  plan->spine_bytes_lower_bound = 1.25e9;
  EXPECT_EQ(SummaryLine("alloc-7", *plan, plugins::NodeNameMap()),
            "topoplace: alloc-7: 4 ranks on 2 nodes (b01-n002,b01-n000) in 1 block, "
            "spine 2.50 GB/iter (lower bound 1.25 GB)");
}

TEST(SummaryLine, GivesThePredictedSlowdownWhenThePlanHasOne) {
  std::string text = kPlan;
  text.insert(text.rfind('}'), R"(, "predicted_slowdown": 1.318)");
  absl::StatusOr<PlanView> plan = ParsePlanJson(text);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(SummaryLine("alloc-7", *plan, plugins::NodeNameMap()),
              HasSubstr("(lower bound 0 B), predicted slowdown 1.32x"));
}

TEST(HumanBytes, DecimalUnits) {
  EXPECT_EQ(HumanBytes(0), "0 B");
  EXPECT_EQ(HumanBytes(999), "999 B");
  EXPECT_EQ(HumanBytes(12.5e6), "12.5 MB");
  EXPECT_EQ(HumanBytes(320e6), "320 MB");
}

}  // namespace
}  // namespace topoplace::slurm
