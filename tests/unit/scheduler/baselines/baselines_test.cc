#include <gtest/gtest.h>

#include <map>

#include "scheduler/baselines/baseline_policies.h"
#include "scheduler/builtin/builtin_plugins.h"
#include "scheduler/placement/engine.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::sched {
namespace {

// superpod-4su with free nodes per block: b0 10, b1 20, b2 32, b3 5.
class BaselinesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    absl::StatusOr<FabricPtr> f = GeneratePreset("superpod-4su");
    ASSERT_TRUE(f.ok()) << f.status();
    fabric_ = new FabricPtr(*f);
  }
  static void TearDownTestSuite() { delete fabric_; }

  Occupancy Background() const {
    Occupancy occ(**fabric_);
    const int busy[] = {22, 12, 0, 27};
    for (int b = 0; b < 4; ++b) {
      for (int i = 0; i < busy[b]; ++i) occ.SetHost((*fabric_)->blocks()[b].hosts[i], true);
    }
    return occ;
  }

  // Hosts taken per block, and the block of the host running rank 0.
  struct Choice {
    std::map<int, int> per_block;
    int first_block = -1;
  };
  Choice Run(const std::string& policy, const std::string& spec) {
    PlacementEngine engine(*fabric_);
    PlacementRequest req;
    absl::StatusOr<JobSpec> job = ParseJobSpec(spec);
    EXPECT_TRUE(job.ok()) << job.status();
    req.job = *job;
    req.policy = policy;
    absl::StatusOr<PlacementPlan> plan = engine.Place(req, Background());
    EXPECT_TRUE(plan.ok()) << policy << ": " << plan.status();
    Choice c;
    if (!plan.ok()) return c;
    for (HostId h : plan->node_hosts) ++c.per_block[(*fabric_)->hosts()[h].block];
    c.first_block = (*fabric_)->hosts()[plan->node_hosts[0]].block;
    return c;
  }

  static FabricPtr* fabric_;
};
FabricPtr* BaselinesTest::fabric_ = nullptr;

using PerBlock = std::map<int, int>;

// 40 nodes (tp=8, pp=5, dp=8): no block holds it.
constexpr const char* kSpanningJob = "tp=8,pp=5,dp=8";
// 16 nodes (tp=8, pp=2, dp=8): blocks 1 and 2 can hold it.
constexpr const char* kSmallJob = "tp=8,pp=2,dp=8";

TEST_F(BaselinesTest, FirstFitTakesHostsInFabricOrder) {
  // 10 from b0, 20 from b1, then 10 from b2.
  EXPECT_EQ(Run("first-fit", kSpanningJob).per_block, (PerBlock{{0, 10}, {1, 20}, {2, 10}}));
  EXPECT_EQ(Run("first-fit", kSmallJob).per_block, (PerBlock{{0, 10}, {1, 6}}));
}

TEST_F(BaselinesTest, SlurmTreeTakesTheLargestLeafThenTheBestFitLeaf) {
  // Root switch: b2 (32, the most free), remainder 8 -> b0 (10 is the smallest >= 8).
  // Ranks follow the sorted host list, so rank 0 lands in b0.
  const auto c = Run("slurm-tree", kSpanningJob);
  EXPECT_EQ(c.per_block, (PerBlock{{0, 8}, {2, 32}}));
  EXPECT_EQ(c.first_block, 0);
  // A leaf that fits alone: the one with the fewest free nodes, b1 (20).
  EXPECT_EQ(Run("slurm-tree", kSmallJob).per_block, (PerBlock{{1, 16}}));
}

TEST_F(BaselinesTest, SlurmBlockWaitsWhenNoBlockOfItsLevelHoldsTheJob) {
  // 40 nodes need 2 base blocks of 32: aggregates of 2, {b0,b1} = 30 and {b2,b3} = 37,
  // hold none, so the job waits though the cluster has 67 free (Slurm's test_const1).
  PlacementEngine engine(*fabric_);
  PlacementRequest req;
  req.job = *ParseJobSpec(kSpanningJob);
  req.policy = "slurm-block";
  EXPECT_EQ(engine.Place(req, Background()).status().code(), absl::StatusCode::kResourceExhausted);
  // 36 fit {b2,b3}: the base block with the most first (b2), then 4 from b3.
  EXPECT_EQ(Run("slurm-block", "tp=8,pp=4,dp=9").per_block, (PerBlock{{2, 32}, {3, 4}}));
  // One base block holds 16: the one with the fewest free nodes, b1 (20).
  EXPECT_EQ(Run("slurm-block", kSmallJob).per_block, (PerBlock{{1, 16}}));
}

TEST_F(BaselinesTest, KueueBestFitListsRanksInDomainOrder) {
  // The pod's blocks most free first, the last the tightest fit: b2 (32) and b0 (10) for
  // the 8 left. Below them Kueue pools the hosts of both and fills them again by name,
  // not by what each block was given: b0's 10 hosts, then 30 of b2's. Ranks follow
  // Kueue's listing of the assignment, by domain, so b0 first.
  const auto c = Run("kueue-bestfit", kSpanningJob);
  EXPECT_EQ(c.per_block, (PerBlock{{0, 10}, {2, 30}}));
  EXPECT_EQ(c.first_block, 0);
  EXPECT_EQ(Run("kueue-bestfit", kSmallJob).per_block, (PerBlock{{1, 16}}));
}

TEST_F(BaselinesTest, KueueBestFitStartsAtTheRequiredLevel) {
  // A required pod (superpod-4su has one), then its blocks most free first: b2 (32)
  // already covers 16, so the tightest covering block from there on is taken, b1 (20).
  EXPECT_EQ(Run("kueue-bestfit", "tp=8,pp=2,dp=8,max_tier=pod").per_block, (PerBlock{{1, 16}}));
  // Unconstrained (no bound, mode=soft): hosts by name, no topology: b0's 10, b1's 6.
  EXPECT_EQ(Run("kueue-bestfit", "tp=8,pp=2,dp=8,mode=soft").per_block,
            (PerBlock{{0, 10}, {1, 6}}));
}

// segment=S is Kueue's podSetSliceSize S with podSetSliceRequiredTopology block: capacity
// in whole slices of S (b0 10/6 = 1, b1 3, b2 5, b3 0), and each chosen block fills only its
// own slices' nodes.
TEST_F(BaselinesTest, KueueBestFitPlacesPodSetSlicesInsideBlocks) {
  // 36 nodes in slices of 6, block preferred: no block holds 6 slices; over the pod, most
  // slices first: b2's 5 (30 of its 32 hosts), then the tightest block with 1 left: b0.
  EXPECT_EQ(Run("kueue-bestfit", "tp=8,pp=1,dp=36,segment=6,max_tier=block,mode=soft").per_block,
            (PerBlock{{0, 6}, {2, 30}}));
  // Without slices the same job is b2's 32 and 4 of b3's 5, its hosts pooled by name.
  EXPECT_EQ(Run("kueue-bestfit", "tp=8,pp=1,dp=36,max_tier=block,mode=soft").per_block,
            (PerBlock{{2, 32}, {3, 4}}));
  // A required block must hold every slice: 4 slices of 6 fit b1 (3) no more, b2 (5) does.
  EXPECT_EQ(Run("kueue-bestfit", "tp=8,pp=1,dp=24,segment=6,max_tier=block").per_block,
            (PerBlock{{2, 24}}));
}

TEST_F(BaselinesTest, VolcanoBinpacksTheLowestTierHyperNode) {
  // No block-tier HyperNode fits 40, the cluster does; all free hosts are equally empty,
  // so binpack ties fall back to node order, like first-fit.
  EXPECT_EQ(Run("volcano", kSpanningJob).per_block, (PerBlock{{0, 10}, {1, 20}, {2, 10}}));
  // A block-tier HyperNode fits 16: the most utilised one, b1.
  EXPECT_EQ(Run("volcano", kSmallJob).per_block, (PerBlock{{1, 16}}));
}

TEST_F(BaselinesTest, KaiTakesTheMostPackedDomainOfTheLowestLevelThatHoldsTheJob) {
  // Blocks holding 16: b1 (20 free hosts) is more packed than b2 (32).
  EXPECT_EQ(Run("kai", kSmallJob).per_block, (PerBlock{{1, 16}}));
  // No block holds 40; the pod (the whole cluster) does. Hosts by the topology score of
  // their block, highest for the least packed (b2, then b1), then by name.
  EXPECT_EQ(Run("kai", kSpanningJob).per_block, (PerBlock{{1, 8}, {2, 32}}));
  // A required block no block of which holds the job: pending.
  PlacementEngine engine(*fabric_);
  PlacementRequest req;
  req.job = *ParseJobSpec("tp=8,pp=5,dp=8,max_tier=block");
  req.policy = "kai";
  EXPECT_EQ(engine.Place(req, Background()).status().code(), absl::StatusCode::kResourceExhausted);
}

TEST_F(BaselinesTest, RandomIsSeededAndUsesOnlyFreeHosts) {
  const auto a = Run("random", kSpanningJob);
  const auto b = Run("random", kSpanningJob);
  EXPECT_EQ(a.per_block, b.per_block);
  int total = 0;
  const int free[] = {10, 20, 32, 5};
  for (const auto& [block, n] : a.per_block) {
    EXPECT_LE(n, free[block]);
    total += n;
  }
  EXPECT_EQ(total, 40);
}

TEST_F(BaselinesTest, TopoplacePacksWholeStagesIntoBlocks) {
  // Stages are 8 nodes: two blocks, each holding whole stages (b2 takes 4 of the 5), so no
  // DP ring is split and only one PP boundary crosses the spine.
  const auto c = Run("topoplace", kSpanningJob);
  int stages_split = 0;
  for (const auto& [block, n] : c.per_block) stages_split += n % 8 != 0;
  EXPECT_EQ(stages_split, 0);
  EXPECT_EQ(c.per_block.size(), 2u);
}

TEST(PolicyRegistry, ListsEveryPolicyOnceAndRejectsUnknownNames) {
  const std::vector<std::string> names = BuiltinPlugins().PolicyNames();
  EXPECT_EQ(names, (std::vector<std::string>{"topoplace", "first-fit", "random", "slurm-tree",
                                             "slurm-block", "kueue-bestfit", "volcano", "kai"}));
  for (const std::string& name : names) {
    absl::StatusOr<PlacementPolicyPtr> p = BuiltinPlugins().MakePolicy(name);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ((*p)->name(), name);
  }
  EXPECT_EQ(BuiltinPlugins().MakePolicy("best").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace topoplace::sched
