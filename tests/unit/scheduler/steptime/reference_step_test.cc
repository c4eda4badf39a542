// What a trace's durations are measured at: the job on the most compact hosts of the
// empty fabric, network bytes at leaf speed. On NVL72 racks (gb200-nvl72: 18 trays of 4
// GPUs per rack, non-blocking rail leaves) a job that fits a rack runs at NVLink speed
// there, so the same job spread over two racks is slower: its bytes that leave the rack
// cost time (they cost none when the reference was the placement's own bytes at leaf
// speed).
#include "scheduler/steptime/reference_step.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "scheduler/placement/engine.h"
#include "scheduler/state/occupancy.h"
#include "tests/unit/scheduler/sim/tiny_fabric.h"

namespace topoplace::sched::sim {
namespace {

class ReferenceStepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<FabricPtr> f = GeneratePreset("gb200-nvl72");
    ASSERT_TRUE(f.ok()) << f.status();
    fabric_ = *f;
    comm_.emplace(CommModel::ForFabric(*fabric_, {}));
    engine_.emplace(fabric_);
    // 16 trays: one rack holds it. Expert all-to-all over all 64 GPUs. Soft, so that the
    // engine places it on named hosts that split its expert group.
    spec_ = *ParseJobSpec("tp=4,pp=1,dp=1,ep=16,gpus_per_node=4,model=70b,mode=soft");
  }

  // The plan of spec_ on `first` trays of rack 0 and the rest of rack 1.
  PlacementPlan PlanOver(int first) {
    PlacementRequest request;
    request.job = spec_;
    for (int t = 0; t < 16; ++t) {
      request.job.hosts.push_back(t < first ? absl::StrCat("b00-n", Padded(t))
                                            : absl::StrCat("b00-n", Padded(18 + t - first)));
    }
    absl::StatusOr<PlacementPlan> plan = engine_->Place(request, Occupancy(*fabric_));
    EXPECT_TRUE(plan.ok()) << plan.status();
    return *plan;
  }
  static std::string Padded(int n) { return absl::StrFormat("%03d", n); }

  FabricPtr fabric_;
  std::optional<CommModel> comm_;
  std::optional<PlacementEngine> engine_;
  JobSpec spec_;
};

TEST_F(ReferenceStepTest, TheCompactHostsFillOneRackFirst) {
  ReferenceSteps reference(engine_->tiers(), *comm_, /*rail_local=*/true);
  const std::optional<TrafficReport> compact = reference.CompactTraffic(spec_);
  ASSERT_TRUE(compact.has_value());
  EXPECT_EQ(compact->network_bytes(), 0) << "16 trays inside one 18-tray rack";
  const PlacementPlan inside = PlanOver(16);
  ASSERT_EQ(inside.traffic.network_bytes(), 0);
  EXPECT_DOUBLE_EQ(reference.StepSeconds(spec_, inside.traffic),
                   comm_->StepSeconds(spec_, inside.traffic));
}

TEST_F(ReferenceStepTest, BytesThatLeaveTheRackCostTimeAgainstTheReference) {
  ReferenceSteps reference(engine_->tiers(), *comm_, /*rail_local=*/true);
  const PlacementPlan inside = PlanOver(16), split = PlanOver(8);
  ASSERT_GT(split.traffic.network_bytes(), 0);
  const double ref = reference.StepSeconds(spec_, split.traffic);
  EXPECT_DOUBLE_EQ(ref, reference.StepSeconds(spec_, inside.traffic)) << "one per job";
  EXPECT_GT(comm_->StepSeconds(spec_, split.traffic) / ref, 1.5)
      << "half of every rank's all-to-all at 48 GB/s instead of 740";
  // The placement's own bytes at leaf speed call the split job unslowed: the old reference.
  EXPECT_DOUBLE_EQ(comm_->Slowdown(spec_, split.traffic), 1.0);
}

TEST_F(ReferenceStepTest, AJobLargerThanTheFabricFallsBackToItsOwnBytesAtLeafSpeed) {
  ReferenceSteps reference(engine_->tiers(), *comm_, /*rail_local=*/true);
  const JobSpec huge = *ParseJobSpec("tp=4,pp=1,dp=512,gpus_per_node=4,model=70b");
  EXPECT_FALSE(reference.CompactTraffic(huge).has_value());
  const PlacementPlan split = PlanOver(8);
  EXPECT_DOUBLE_EQ(reference.StepSeconds(huge, split.traffic),
                   comm_->ReferenceStepSeconds(huge, split.traffic));
}

// On 8-GPU nodes whole-node jobs send the same bytes over the network wherever they go:
// the reference is their own bytes at leaf speed, as before.
TEST(ReferenceStep, WholeNodeJobsOnEightGpuNodesKeepTheirOwnReference) {
  absl::StatusOr<FabricPtr> fabric = TinyOversubscribedFabric();
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  const CommModel comm = CommModel::ForFabric(**fabric, HandComputedComm());
  PlacementEngine engine(*fabric);
  ReferenceSteps reference(engine.tiers(), comm, /*rail_local=*/true);
  PlacementRequest request;
  request.job = *ParseJobSpec(
      "tp=8,pp=1,dp=2,h=8,s=1000,b=1,layers=8,params=1e9,mb=1,tp_bytes=0,dp_bytes=25e9");
  request.job.hosts = {(*fabric)->hosts()[0].name, (*fabric)->hosts()[4].name};  // 2 blocks
  absl::StatusOr<PlacementPlan> plan = engine.Place(request, Occupancy(**fabric));
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_GT(plan->traffic.spine_bytes(), 0);
  EXPECT_DOUBLE_EQ(reference.StepSeconds(plan->job, plan->traffic),
                   comm.ReferenceStepSeconds(plan->job, plan->traffic));
}

}  // namespace
}  // namespace topoplace::sched::sim
