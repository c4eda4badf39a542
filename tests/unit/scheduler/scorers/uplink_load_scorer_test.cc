// The uplink-load scorer: with the uplink load of running jobs known, the engine places a
// job whose traffic must climb where the uplinks are cool; without it, nothing changes.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "scheduler/placement/engine.h"
#include "tests/unit/scheduler/sim/tiny_fabric.h"

namespace topoplace::sched {
namespace {

// Three blocks of two 8-GPU hosts, one spine, each rail leaf with one 400G uplink (2:1)
// (tiny_fabric.h). The first host of every block is busy, so a two-host job must span two
// blocks and its DP rings climb out of both blocks' leaves.
class UplinkLoadScorerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<FabricPtr> f = sim::TinySharedUplinkFabric();
    ASSERT_TRUE(f.ok()) << f.status();
    fabric_ = *f;
  }

  // The blocks of the hosts the job lands on, with the leaves of block `hot` (-1: none)
  // at `busy` of their uplink capacity.
  std::vector<int> PlacedBlocks(int hot, double busy, const std::string& policy) {
    const Fabric& f = *fabric_;
    Occupancy occupancy(f);
    for (const Block& block : f.blocks()) occupancy.SetHost(block.hosts[0], true);
    PlacementRequest req;
    req.job = *ParseJobSpec("tp=8,pp=1,dp=2,model=7b");
    req.policy = policy;
    if (hot >= 0) {
      req.uplink_busy.assign(f.switches().size(), 0.0);
      for (SwitchId leaf : f.blocks()[hot].leaves) req.uplink_busy[leaf] = busy;
    }
    absl::StatusOr<PlacementPlan> plan = PlacementEngine(fabric_).Place(req, occupancy);
    EXPECT_TRUE(plan.ok()) << plan.status();
    std::vector<int> blocks;
    if (!plan.ok()) return blocks;
    for (HostId h : plan->node_hosts) blocks.push_back(f.hosts()[h].block);
    return blocks;
  }

  // The job placed with every block's first host busy, under `busy` (empty: no load).
  PlacementPlan PlaceAcrossBlocks(std::vector<double> busy) {
    const Fabric& f = *fabric_;
    Occupancy occupancy(f);
    for (const Block& block : f.blocks()) occupancy.SetHost(block.hosts[0], true);
    PlacementRequest req;
    req.job = *ParseJobSpec("tp=8,pp=1,dp=2,model=7b");
    req.uplink_busy = std::move(busy);
    absl::StatusOr<PlacementPlan> plan = PlacementEngine(fabric_).Place(req, occupancy);
    EXPECT_TRUE(plan.ok()) << plan.status();
    return plan.ok() ? *std::move(plan) : PlacementPlan{};
  }

  // The uplink-load scorer's line of the plan's explanation, or null.
  static const ScorerContribution* UplinkExplain(const PlacementPlan& plan) {
    for (const ScorerContribution& e : plan.explain) {
      if (e.scorer == "uplink-load") return &e;
    }
    return nullptr;
  }

  FabricPtr fabric_;
};

TEST_F(UplinkLoadScorerTest, StepsAJobOffTheBlockWhoseUplinksAreHot) {
  for (int hot = 0; hot < 3; ++hot) {
    const std::vector<int> blocks = PlacedBlocks(hot, 0.9, "topoplace");
    ASSERT_EQ(blocks.size(), 2u);
    EXPECT_NE(blocks[0], blocks[1]);
    for (int b : blocks) EXPECT_NE(b, hot) << "hot block " << hot;
  }
}

TEST_F(UplinkLoadScorerTest, WithoutLoadOrAtZeroLoadThePlanIsUnchanged) {
  const std::vector<int> none = PlacedBlocks(-1, 0, "topoplace");
  EXPECT_EQ(PlacedBlocks(0, 0.0, "topoplace"), none);
  EXPECT_EQ(PlacedBlocks(2, 0.0, "topoplace"), none);
}

TEST_F(UplinkLoadScorerTest, ExplainsTheHotBytes) {
  // Every leaf half busy: whatever the choice, all bytes that climb do so through
  // half-busy uplinks, so the normalised cost is 0.5.
  const PlacementPlan plan =
      PlaceAcrossBlocks(std::vector<double>(fabric_->switches().size(), 0.5));
  const ScorerContribution* e = UplinkExplain(plan);
  ASSERT_NE(e, nullptr);
  EXPECT_DOUBLE_EQ(e->normalized, 0.5);
  EXPECT_GT(e->raw, 0);
}

TEST_F(UplinkLoadScorerTest, WithoutLoadNothingIsHotThoughBytesClimb) {
  const PlacementPlan plan = PlaceAcrossBlocks({});
  double climbing = 0;
  for (double bytes : plan.traffic.network.leaf_up) climbing += bytes;
  EXPECT_GT(climbing, 0) << "the job must span blocks for this test to say anything";
  const ScorerContribution* e = UplinkExplain(plan);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->raw, 0);
  EXPECT_EQ(e->normalized, 0);
}

}  // namespace
}  // namespace topoplace::sched
