#include "plugins/slurm/spank/task_env.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace topoplace::slurm {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;

// Node a holds ranks 0-3 on GPUs 3,2,1,0 (reversed, so GPU order is visible); node b holds
// ranks 4-7, two per NIC.
PlanView TwoNodePlan() {
  PlanView plan;
  plan.hosts = {"a", "b"};
  for (int r = 0; r < 4; ++r)
    plan.ranks.push_back({r, "a", 3 - r, "mlx5_" + std::to_string(3 - r)});
  for (int r = 4; r < 8; ++r) plan.ranks.push_back({r, "b", r - 4, r < 6 ? "mlx5_0" : "mlx5_1"});
  return plan;
}

TEST(TaskEnvironment, OneTaskPerRank) {
  absl::StatusOr<TaskEnv> env =
      TaskEnvironment(TwoNodePlan(), "alloc-1", "a", plugins::NodeNameMap(), 1, 4);
  ASSERT_TRUE(env.ok()) << env.status();
  EXPECT_THAT(*env, Contains(Pair("TOPOPLACE_PLAN_ID", "alloc-1")));
  EXPECT_THAT(*env, Contains(Pair("TOPOPLACE_NODE_RANK", "0")));
  EXPECT_THAT(*env, Contains(Pair("TOPOPLACE_RANK", "1")));
  EXPECT_THAT(*env, Contains(Pair("TOPOPLACE_RANKS", "1")));
  EXPECT_THAT(*env, Contains(Pair("CUDA_VISIBLE_DEVICES", "2")));
  EXPECT_THAT(*env, Contains(Pair("NCCL_IB_HCA", "=mlx5_2")));
}

TEST(TaskEnvironment, OneTaskPerNodeGetsAllRanksInRankOrder) {
  absl::StatusOr<TaskEnv> env =
      TaskEnvironment(TwoNodePlan(), "alloc-1", "b", plugins::NodeNameMap(), 0, 1);
  ASSERT_TRUE(env.ok()) << env.status();
  EXPECT_THAT(*env, Contains(Pair("TOPOPLACE_NODE_RANK", "1")));
  EXPECT_THAT(*env, Contains(Pair("TOPOPLACE_RANKS", "4,5,6,7")));
  EXPECT_THAT(*env, Not(Contains(Pair("TOPOPLACE_RANK", ::testing::_))));
  EXPECT_THAT(*env, Contains(Pair("CUDA_VISIBLE_DEVICES", "0,1,2,3")));
  EXPECT_THAT(*env, Contains(Pair("NCCL_IB_HCA", "=mlx5_0,mlx5_1")));  // each NIC once
}

TEST(TaskEnvironment, TwoTasksPerNodeSplitTheRanks) {
  absl::StatusOr<TaskEnv> env =
      TaskEnvironment(TwoNodePlan(), "alloc-1", "a", plugins::NodeNameMap(), 1, 2);
  ASSERT_TRUE(env.ok()) << env.status();
  EXPECT_THAT(*env, Contains(Pair("TOPOPLACE_RANKS", "2,3")));
  EXPECT_THAT(*env, Contains(Pair("CUDA_VISIBLE_DEVICES", "1,0")));
}

TEST(TaskEnvironment, FindsTheNodeThroughTheNodeMap) {
  absl::StatusOr<plugins::NodeNameMap> map = plugins::NodeNameMap::Parse("b slurm-b\n", "map");
  ASSERT_TRUE(map.ok());
  absl::StatusOr<TaskEnv> env = TaskEnvironment(TwoNodePlan(), "alloc-1", "slurm-b", *map, 0, 4);
  ASSERT_TRUE(env.ok()) << env.status();
  EXPECT_THAT(*env, Contains(Pair("TOPOPLACE_RANK", "4")));
}

TEST(TaskEnvironment, NoNicMeansNoNcclVariable) {
  PlanView plan;
  plan.hosts = {"a"};
  plan.ranks = {{0, "a", 0, ""}};
  absl::StatusOr<TaskEnv> env = TaskEnvironment(plan, "alloc-1", "a", plugins::NodeNameMap(), 0, 1);
  ASSERT_TRUE(env.ok()) << env.status();
  EXPECT_THAT(*env, Not(Contains(Pair("NCCL_IB_HCA", ::testing::_))));
}

TEST(TaskEnvironment, RefusesNodesOutsideThePlanAndUnevenSplits) {
  EXPECT_EQ(
      TaskEnvironment(TwoNodePlan(), "alloc-1", "c", plugins::NodeNameMap(), 0, 1).status().code(),
      absl::StatusCode::kNotFound);
  absl::StatusOr<TaskEnv> uneven =
      TaskEnvironment(TwoNodePlan(), "alloc-1", "a", plugins::NodeNameMap(), 0, 3);
  EXPECT_EQ(uneven.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(uneven.status().message(), HasSubstr("do not split evenly over 3 tasks"));
  EXPECT_EQ(
      TaskEnvironment(TwoNodePlan(), "alloc-1", "a", plugins::NodeNameMap(), 4, 4).status().code(),
      absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace topoplace::slurm
