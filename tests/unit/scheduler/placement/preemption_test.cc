#include "scheduler/placement/preemption.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/testing/fabrics.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::sched {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

FabricPtr TwoBlocks() { return *GenerateClos(testing::TwoBlocksOfEight()); }

// A running job on hosts [first, first + count) of block `block`, all their GPUs.
RunningJob Job(const Fabric& fabric, std::string id, int64_t priority, int block, int first,
               int count, std::optional<double> lost = std::nullopt) {
  RunningJob job{std::move(id), priority, {}, lost};
  for (int i = first; i < first + count; ++i) {
    const Host& host = fabric.hosts()[fabric.blocks()[block].hosts[i]];
    job.gpus.insert(job.gpus.end(), host.gpus.begin(), host.gpus.end());
  }
  return job;
}

Occupancy Holding(const Fabric& fabric, const std::vector<RunningJob>& running) {
  Occupancy occupancy(fabric);
  for (const RunningJob& r : running) {
    for (GpuId g : r.gpus) occupancy.Set(g, true);
  }
  return occupancy;
}

std::vector<std::string> Ids(const PreemptionPlan& p) {
  std::vector<std::string> ids;
  for (const Victim& v : p.victims) ids.push_back(v.id);
  return ids;
}

std::set<int32_t> PlanBlocks(const Fabric& fabric, const PlacementPlan& plan) {
  std::set<int32_t> blocks;
  for (HostId h : plan.node_hosts) blocks.insert(fabric.hosts()[h].block);
  return blocks;
}

PlacementRequest Request(const std::string& spec) {
  PlacementRequest request;
  request.job = *ParseJobSpec(spec);
  return request;
}

// Block 0: six single-host jobs of priority 1 and two hosts of a priority-100 job; block 1:
// two hosts free and a 6-host job of priority 5. A 6-host job of priority 10 that must stay
// in one block: a priority-only choice stops four priority-1 jobs (the cluster then has 6
// hosts free, 4 in block 0 and 2 in block 1) and the job still cannot start in one block;
// topoplace stops the one priority-5 job and the job gets block 1.
class PreemptionTest : public ::testing::Test {
 protected:
  PreemptionTest() : fabric_(TwoBlocks()), engine_(fabric_) {
    for (int i = 0; i < 6; ++i)
      running_.push_back(Job(*fabric_, absl::StrCat("small-", i), 1, 0, i, 1));
    running_.push_back(Job(*fabric_, "vip", 100, 0, 6, 2));
    running_.push_back(Job(*fabric_, "mid", 5, 1, 2, 6));
  }

  FabricPtr fabric_;
  PlacementEngine engine_;
  std::vector<RunningJob> running_;
};

TEST_F(PreemptionTest, TopoplaceFreesOneBlockWhereAPriorityOnlyChoiceLeavesTheJobWaiting) {
  const Occupancy occupancy = Holding(*fabric_, running_);
  const PlacementRequest request = Request("tp=8,pp=2,dp=3,max_tier=block,priority=10");
  ASSERT_FALSE(engine_.Place(request, occupancy).ok()) << "nothing fits before preempting";

  // Kueue-like: lowest priority first until enough hosts are free anywhere.
  const std::vector<std::string> naive =
      PriorityOnlyVictims(*fabric_, request.job, occupancy, running_);
  EXPECT_THAT(naive, ElementsAre("small-0", "small-1", "small-2", "small-3"));
  Occupancy after_naive = occupancy;
  for (const RunningJob& r : running_) {
    if (std::find(naive.begin(), naive.end(), r.id) == naive.end()) continue;
    for (GpuId g : r.gpus) after_naive.Set(g, false);
  }
  EXPECT_FALSE(engine_.Place(request, after_naive).ok())
      << "four jobs stopped and the job still waits: no block has 6 free hosts";

  absl::StatusOr<PreemptionPlan> plan = PlanPreemption(engine_, request, occupancy, running_);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(Ids(*plan), ElementsAre("mid"));
  EXPECT_EQ(plan->domain, "block 1");
  EXPECT_THAT(PlanBlocks(*fabric_, plan->plan), ElementsAre(1));
  EXPECT_THAT(plan->victims[0].reason, HasSubstr("priority 5 < 10; frees 48 GPUs in block 1"));
}

TEST_F(PreemptionTest, NeverStopsAJobOfEqualOrHigherPriority) {
  const Occupancy occupancy = Holding(*fabric_, running_);
  // At priority 5 only the priority-1 jobs may go: all six clear block 0's six hosts.
  absl::StatusOr<PreemptionPlan> plan = PlanPreemption(
      engine_, Request("tp=8,pp=2,dp=3,max_tier=block,priority=5"), occupancy, running_);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(Ids(*plan).size(), 6u);
  for (const Victim& v : plan->victims) EXPECT_LT(v.priority, 5) << v.id;
  EXPECT_EQ(plan->domain, "block 0");

  // At priority 1 nothing may go.
  absl::StatusOr<PreemptionPlan> none = PlanPreemption(
      engine_, Request("tp=8,pp=2,dp=3,max_tier=block,priority=1"), occupancy, running_);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(none.status().message()), HasSubstr("priority below 1"));
  EXPECT_THAT(PriorityOnlyVictims(*fabric_, *ParseJobSpec("tp=8,pp=2,dp=3,priority=1"), occupancy,
                                  running_),
              IsEmpty());
}

TEST_F(PreemptionTest, KnownLossDecidesBeforeTheNumberOfVictims) {
  // The six small jobs checkpointed a minute ago, the 6-host job ran 3 hours since its
  // last checkpoint: six cheap victims beat one expensive one.
  for (RunningJob& r : running_) r.lost_gpu_hours = r.id == "mid" ? 6 * 8 * 3.0 : 8 / 60.0;
  absl::StatusOr<PreemptionPlan> plan =
      PlanPreemption(engine_, Request("tp=8,pp=2,dp=3,max_tier=block,priority=10"),
                     Holding(*fabric_, running_), running_);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->domain, "block 0");
  EXPECT_EQ(Ids(*plan).size(), 6u);
  EXPECT_NEAR(plan->lost_gpu_hours, 6 * 8 / 60.0, 1e-9);
  EXPECT_THAT(plan->victims[0].reason, HasSubstr("loses 0.13 GPU-hours"));
}

TEST_F(PreemptionTest, HostsTheJobNamesStayItsOnlyHosts) {
  // The job names block 0's hosts only: block 1 (one cheap victim) is out of reach, so the
  // six priority-1 jobs there go.
  std::string hosts;
  for (HostId h : fabric_->blocks()[0].hosts) {
    absl::StrAppend(&hosts, hosts.empty() ? "" : ",", fabric_->hosts()[h].name);
  }
  absl::StatusOr<PreemptionPlan> plan =
      PlanPreemption(engine_, Request("tp=8,pp=2,dp=3,max_tier=block,priority=10,hosts=" + hosts),
                     Holding(*fabric_, running_), running_);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->domain, "block 0");
  EXPECT_EQ(plan->victims.size(), 6u);
  EXPECT_THAT(PlanBlocks(*fabric_, plan->plan), ElementsAre(0));
}

TEST_F(PreemptionTest, AJobThatFitsStopsNothing) {
  absl::StatusOr<PreemptionPlan> plan =
      PlanPreemption(engine_, Request("tp=8,pp=1,dp=2,max_tier=block,priority=10"),
                     Holding(*fabric_, running_), running_);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(plan->victims, IsEmpty());
  EXPECT_THAT(PlanBlocks(*fabric_, plan->plan), ElementsAre(1));  // block 1's two free hosts
}

// Block 0's host 0: one GPU of a priority-0 job, seven of a priority-3 job; hosts 1 and 2
// a priority-1 job; the rest of the cluster priority 100. For 2 hosts the cheapest-first
// pass stops the priority-0 job (which frees no whole host) and then the priority-1 job;
// the second alone is enough, so the first is dropped again.
TEST(Preemption, VictimsThatFreeNothingUsableAreDroppedAgain) {
  const FabricPtr fabric = TwoBlocks();
  const PlacementEngine engine(fabric);
  const std::vector<GpuId>& host0 = fabric->hosts()[fabric->blocks()[0].hosts[0]].gpus;
  std::vector<RunningJob> running = {
      {"one-gpu", 0, {host0[0]}, std::nullopt},
      {"seven-gpus", 3, {host0.begin() + 1, host0.end()}, std::nullopt},
      Job(*fabric, "two-hosts", 1, 0, 1, 2),
      Job(*fabric, "rest-of-0", 100, 0, 3, 5),
      Job(*fabric, "all-of-1", 100, 1, 0, 8)};
  absl::StatusOr<PreemptionPlan> plan =
      PlanPreemption(engine, Request("tp=8,pp=1,dp=2,max_tier=block,priority=10"),
                     Holding(*fabric, running), running);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(Ids(*plan), ElementsAre("two-hosts"));
  EXPECT_EQ(plan->domain, "block 0");
}

}  // namespace
}  // namespace topoplace::sched
