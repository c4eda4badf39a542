// The comm-time model: bandwidth per tier from the fabric, step time, slowdown.
#include "scheduler/sim/comm_model.h"

#include "gtest/gtest.h"
#include "scheduler/job/job_spec.h"
#include "tests/unit/scheduler/sim/tiny_fabric.h"

namespace topoplace::sched::sim {
namespace {

constexpr int kNv = static_cast<int>(Tier::kNvlink);
constexpr int kLeaf = static_cast<int>(Tier::kLeaf);
constexpr int kSpine = static_cast<int>(Tier::kSpine);

class CommModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<FabricPtr> f = TinyOversubscribedFabric();
    ASSERT_TRUE(f.ok()) << f.status();
    fabric_ = *f;
    // params=1e9, 1000 tokens per replica: 6 * 1e9 * 1000 * dp / world = 7.5e11 FLOPs per
    // GPU for tp=8; at 7.5e11 FLOP/s that is 1 s.
    absl::StatusOr<JobSpec> job = ParseJobSpec(
        "tp=8,pp=1,dp=2,h=8,s=1000,b=1,layers=8,params=1e9,mb=1,tp_bytes=0,dp_bytes=25e9");
    ASSERT_TRUE(job.ok()) << job.status();
    job_ = *job;
  }
  FabricPtr fabric_;
  JobSpec job_;
  CommModelOptions options_{.gpu_flops = 7.5e11, .nvlink_gbps = 3600};
};

TEST_F(CommModelTest, ReadsNicSpeedAndOversubscriptionFromTheFabric) {
  const CommModel m = CommModel::ForFabric(*fabric_, options_);
  EXPECT_DOUBLE_EQ(m.tier_bytes_per_s()[kNv], 450e9);     // 3600 Gb/s / 8
  EXPECT_DOUBLE_EQ(m.tier_bytes_per_s()[kLeaf], 50e9);    // 400 Gb/s / 8
  EXPECT_DOUBLE_EQ(m.tier_bytes_per_s()[kSpine], 12.5e9); // 50e9 / 4 (4:1 leaf)
}

TEST_F(CommModelTest, SpineTrafficSlowsTheStepByTheOversubscription) {
  const CommModel m = CommModel::ForFabric(*fabric_, options_);
  EXPECT_DOUBLE_EQ(m.ComputeSeconds(job_), 1.0);
  // 16 ranks x 25e9 B each = 4e11 B per iteration.
  TrafficReport leaf;
  leaf.tier_bytes[kLeaf] = 4e11;
  TrafficReport spine;
  spine.tier_bytes[kSpine] = 4e11;
  // Leaf: 1 + 25e9 / 50e9 = 1.5 s. Spine: 1 + 25e9 / 12.5e9 = 3 s.
  EXPECT_DOUBLE_EQ(m.StepSeconds(job_, leaf), 1.5);
  EXPECT_DOUBLE_EQ(m.StepSeconds(job_, spine), 3.0);
  EXPECT_DOUBLE_EQ(m.ReferenceStepSeconds(job_, spine), 1.5);
  EXPECT_DOUBLE_EQ(m.Slowdown(job_, leaf), 1.0);
  EXPECT_DOUBLE_EQ(m.Slowdown(job_, spine), 2.0);
}

TEST_F(CommModelTest, NonBlockingFabricNeverSlowsAJobDown) {
  absl::StatusOr<FabricPtr> superpod = GeneratePreset("superpod-4su");
  ASSERT_TRUE(superpod.ok()) << superpod.status();
  const CommModel m = CommModel::ForFabric(**superpod, options_);
  TrafficReport spine;
  spine.tier_bytes[kSpine] = 4e11;
  EXPECT_DOUBLE_EQ(m.Slowdown(job_, spine), 1.0);
}

}  // namespace
}  // namespace topoplace::sched::sim
