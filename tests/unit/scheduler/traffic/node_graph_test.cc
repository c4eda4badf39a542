#include "scheduler/traffic/node_graph.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "scheduler/job/job_spec.h"

namespace topoplace::sched {
namespace {

// The segment's node edges the slow way, from the rank-level pattern: every rank of node
// slot k (its first rank stands for all gpus_per_node of them, the dimension being
// node-aligned) talks to its ring successor, its next stage, or every other member.
std::vector<std::pair<int, int>> EdgesByRank(const RankLayout& layout, Dim d, Pattern pattern,
                                             int g, int nodes) {
  std::vector<std::pair<int, int>> edges;
  for (int k = 0; k < nodes; ++k) {
    const int rank = k * g;
    const int coord = layout.Coord(rank, d);
    const int size = layout.size(d);
    switch (pattern) {
      case Pattern::kRing:
        edges.emplace_back(k, layout.Neighbor(rank, d) / g);
        break;
      case Pattern::kChain:
        if (coord + 1 < size) edges.emplace_back(k, layout.WithCoord(rank, d, coord + 1) / g);
        break;
      case Pattern::kAllToAll:
        for (int c = 0; c < size; ++c) {
          if (c != coord) edges.emplace_back(k, layout.WithCoord(rank, d, c) / g);
        }
        break;
    }
  }
  return edges;
}

class NodeGraphTest : public testing::TestWithParam<const char*> {};

TEST_P(NodeGraphTest, CountsTheCrossingEdgesTheRankPatternInduces) {
  const JobSpec job = *ParseJobSpec(GetParam());
  const RankLayout layout(job);
  const TrafficModel traffic = BuildTrafficModel(job);
  const int g = job.gpus_per_node;
  const int nodes = layout.world_size() / g;
  const NodeGraph graph = BuildNodeGraph(layout, traffic, g, nodes);
  ASSERT_FALSE(graph.segments.empty()) << GetParam();

  std::mt19937 random(7);
  for (int blocks : {1, 2, 3, 7, nodes}) {
    std::uniform_int_distribution<int32_t> pick(0, blocks - 1);
    std::vector<int32_t> node_block(nodes);
    for (int32_t& b : node_block) b = pick(random);
    double expected_bytes = 0;
    size_t s = 0;
    for (Dim d : kAllDims) {
      if (layout.size(d) <= 1 || layout.stride(d) % g != 0) continue;
      for (const auto& [pattern, pair] : {std::pair{PatternOf(d), traffic.pair(d)},
                                          std::pair{Pattern::kRing, traffic.ring_pair(d)}}) {
        if (pair <= 0) continue;
        ASSERT_LT(s, graph.segments.size());
        const NodeGraph::Segment& segment = graph.segments[s++];
        int64_t crossing = 0;
        for (const auto& [a, b] : EdgesByRank(layout, d, pattern, g, nodes)) {
          if (node_block[a] == node_block[b]) continue;
          ++crossing;
          expected_bytes += segment.weight;  // edge by edge, in edge order
        }
        EXPECT_EQ(CrossingEdges(segment, node_block), crossing)
            << GetParam() << " dim " << DimName(d) << " blocks " << blocks;
      }
    }
    EXPECT_EQ(s, graph.segments.size());
    EXPECT_EQ(CrossBlockBytes(graph, node_block), expected_bytes) << GetParam();
  }
}

TEST_P(NodeGraphTest, NothingCrossesWhenEveryNodeSitsInOneBlock) {
  const JobSpec job = *ParseJobSpec(GetParam());
  const RankLayout layout(job);
  const int nodes = layout.world_size() / job.gpus_per_node;
  const NodeGraph graph = BuildNodeGraph(layout, BuildTrafficModel(job), job.gpus_per_node, nodes);
  EXPECT_EQ(CrossBlockBytes(graph, std::vector<int32_t>(nodes, 4)), 0.0);
}

INSTANTIATE_TEST_SUITE_P(
    Jobs, NodeGraphTest,
    testing::Values("tp=8,pp=4,dp=4,model=7b",                       // DP ring, PP chain
                    "tp=8,pp=16,dp=8,model=405b",                    // long chains
                    "tp=8,pp=2,dp=2,model=7b",                       // size-2 ring: both ways
                    "tp=8,pp=4,dp=6,order=tp-cp-ep-pp-dp,model=7b",  // DP slowest
                    "tp=2,pp=4,dp=2,ep=4,cp=2,model=deepseek-v3",    // EP inside a node (stride 4)
                    "tp=4,pp=16,dp=1,ep=16,gpus_per_node=4,model=deepseek-v3"));  // EP all-to-all

}  // namespace
}  // namespace topoplace::sched
