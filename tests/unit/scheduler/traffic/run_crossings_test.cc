#include "scheduler/traffic/run_crossings.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/mapping/rank_layout.h"
#include "scheduler/traffic/node_graph.h"
#include "scheduler/traffic/traffic_model.h"

namespace topoplace::sched {
namespace {

using Runs = std::vector<std::pair<int32_t, int>>;

// `count` runs of random lengths (some empty) that tile `nodes`, each its own block.
Runs RandomRuns(std::mt19937& random, int nodes, int count) {
  std::vector<int> cuts = {0, nodes};
  std::uniform_int_distribution<int> at(0, nodes);
  for (int i = 1; i < count; ++i) cuts.push_back(at(random));
  std::sort(cuts.begin(), cuts.end());
  Runs runs;
  for (int i = 0; i + 1 < static_cast<int>(cuts.size()); ++i) {
    runs.emplace_back(100 + i, cuts[i + 1] - cuts[i]);
  }
  return runs;
}

// The block of every node slot when `order` lists the slots in position order: the slow
// way the policy laid layouts out before (NodeBlocks).
std::vector<int32_t> SlotBlocks(const Runs& runs, const std::vector<int>& order) {
  std::vector<int32_t> node_block(order.size(), -1);
  size_t i = 0;
  for (const auto& [block, count] : runs) {
    for (int c = 0; c < count; ++c) node_block[order[i++]] = block;
  }
  return node_block;
}

// Slots grouped by their coordinate of `dim`, in node order within a coordinate, written
// out independently of block_packing (a stable sort on the rank layout's Coord).
std::vector<int> GroupedOrder(const RankLayout& layout, Dim dim, int g, int nodes) {
  std::vector<int> order(nodes);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return layout.Coord(a * g, dim) < layout.Coord(b * g, dim);
  });
  return order;
}

class RunCrossingsTest : public testing::TestWithParam<const char*> {};

TEST_P(RunCrossingsTest, CountsWhatTheSlotBySlotWalkCountsInEveryOrder) {
  const JobSpec job = *ParseJobSpec(GetParam());
  const RankLayout layout(job);
  const int g = job.gpus_per_node;
  const int nodes = layout.world_size() / g;
  const NodeGraph graph = BuildNodeGraph(layout, BuildTrafficModel(job), g, nodes);
  ASSERT_FALSE(graph.segments.empty()) << GetParam();

  std::vector<std::pair<absl::StatusOr<RunCrossings>, std::vector<int>>> orders;
  std::vector<int> node_order(nodes);
  std::iota(node_order.begin(), node_order.end(), 0);
  orders.emplace_back(RunCrossings::InNodeOrder(graph), node_order);
  for (Dim dim : kAllDims) {
    if (layout.size(dim) <= 1 || layout.stride(dim) % g != 0) {
      EXPECT_FALSE(RunCrossings::GroupedBy(graph, layout, dim, g).ok()) << DimName(dim);
      continue;
    }
    orders.emplace_back(RunCrossings::GroupedBy(graph, layout, dim, g),
                        GroupedOrder(layout, dim, g, nodes));
  }
  std::mt19937 random(11);
  for (const auto& [crossings, order] : orders) {
    ASSERT_TRUE(crossings.ok()) << GetParam() << ": " << crossings.status();
    for (int count : {1, 2, 3, 5, 9, nodes}) {
      for (int trial = 0; trial < 20; ++trial) {
        const Runs runs = RandomRuns(random, nodes, count);
        EXPECT_EQ(crossings->Bytes(runs), CrossBlockBytes(graph, SlotBlocks(runs, order)))
            << GetParam() << " runs " << count;
      }
    }
  }
}

TEST(RunCrossings, OneRunCrossesNothingAndRunsOfOneSlotCrossEverything) {
  const JobSpec job = *ParseJobSpec("tp=8,pp=4,dp=4,model=7b");
  const RankLayout layout(job);
  const NodeGraph graph = BuildNodeGraph(layout, BuildTrafficModel(job), 8, 16);
  const absl::StatusOr<RunCrossings> crossings =
      RunCrossings::GroupedBy(graph, layout, Dim::kPp, 8);
  ASSERT_TRUE(crossings.ok()) << crossings.status();
  EXPECT_EQ(crossings->Bytes(Runs{{0, 16}}), 0.0);
  Runs singles;
  for (int k = 0; k < 16; ++k) singles.emplace_back(k, 1);
  std::vector<int32_t> everywhere(16);
  std::iota(everywhere.begin(), everywhere.end(), 0);
  EXPECT_EQ(crossings->Bytes(singles), CrossBlockBytes(graph, everywhere));
  EXPECT_GT(crossings->Bytes(singles), 0.0);
}

TEST(RunCrossings, ADimensionInsideANodeCannotGroupTheSlots) {
  const JobSpec job = *ParseJobSpec("tp=8,pp=4,dp=4,model=7b");
  const RankLayout layout(job);
  const NodeGraph graph = BuildNodeGraph(layout, BuildTrafficModel(job), 8, 16);
  const absl::StatusOr<RunCrossings> grouped = RunCrossings::GroupedBy(graph, layout, Dim::kTp, 8);
  ASSERT_FALSE(grouped.ok());
  EXPECT_THAT(grouped.status().message(), testing::HasSubstr("tp is not node-aligned"));
}

// 15 slots for a job of 16: the last DP ring and PP chain group is cut short, which
// CrossingEdges skips and a run count cannot: refused, in either order.
TEST(RunCrossings, GroupsThatDoNotTileTheSlotsAreRefused) {
  const JobSpec job = *ParseJobSpec("tp=8,pp=4,dp=4,model=7b");
  const RankLayout layout(job);
  const NodeGraph graph = BuildNodeGraph(layout, BuildTrafficModel(job), 8, 15);
  const absl::StatusOr<RunCrossings> in_order = RunCrossings::InNodeOrder(graph);
  ASSERT_FALSE(in_order.ok());
  EXPECT_THAT(in_order.status().message(), testing::HasSubstr("do not tile 15 slots"));
  EXPECT_FALSE(RunCrossings::GroupedBy(graph, layout, Dim::kPp, 8).ok());
  EXPECT_FALSE(RunCrossings::GroupedBy(graph, layout, Dim::kDp, 8).ok());
}

INSTANTIATE_TEST_SUITE_P(
    Jobs, RunCrossingsTest,
    testing::Values("tp=8,pp=4,dp=4,model=7b",                       // DP ring, PP chain
                    "tp=8,pp=16,dp=8,model=405b",                    // long chains
                    "tp=8,pp=16,dp=64,model=405b",                   // the benchmark's largest
                    "tp=8,pp=2,dp=2,model=7b",                       // size-2 ring: both ways
                    "tp=8,pp=4,dp=6,order=tp-cp-ep-pp-dp,model=7b",  // DP slowest
                    "tp=4,pp=4,dp=6,model=7b",  // two TP groups a node: DP not aligned
                    "tp=2,pp=4,dp=2,ep=4,cp=2,model=deepseek-v3",  // EP inside a node (stride 4)
                    "tp=4,pp=16,dp=1,ep=16,gpus_per_node=4,model=deepseek-v3",  // EP all-to-all
                    // All-to-alls counted per run in closed form: one slot per coordinate,
                    // DP slowest, EP of two slots
                    "tp=1,pp=2,dp=3,ep=8,gpus_per_node=1,model=deepseek-v3",
                    "tp=4,pp=2,dp=4,ep=4,order=tp-cp-ep-pp-dp,gpus_per_node=4,model=deepseek-v3",
                    "tp=4,pp=3,dp=1,ep=2,gpus_per_node=4,model=deepseek-v3"));

}  // namespace
}  // namespace topoplace::sched
