// The comm-time model: bandwidth per tier from the fabric, step time, slowdown.
#include "scheduler/steptime/comm_model.h"

#include "gtest/gtest.h"
#include "scheduler/job/job_spec.h"
#include "tests/unit/scheduler/sim/tiny_fabric.h"

namespace topoplace::sched {
namespace {

constexpr int kNv = static_cast<int>(Tier::kNvlink);
constexpr int kLeaf = static_cast<int>(Tier::kLeaf);
constexpr int kSpine = static_cast<int>(Tier::kSpine);

class CommModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<FabricPtr> f = sim::TinyOversubscribedFabric();
    ASSERT_TRUE(f.ok()) << f.status();
    fabric_ = *f;
    // params=1e9, 1000 tokens per replica: 6 * 1e9 * 1000 * dp / world = 7.5e11 FLOPs per
    // GPU for tp=8; at 7.5e11 FLOP/s that is 1 s.
    absl::StatusOr<JobSpec> job = ParseJobSpec(
        "tp=8,pp=1,dp=2,h=8,s=1000,b=1,layers=8,params=1e9,mb=1,tp_bytes=0,dp_bytes=25e9");
    ASSERT_TRUE(job.ok()) << job.status();
    job_ = *job;
  }
  // `bytes` per iteration of dimension `dim` at `tier`, as EvaluateTraffic books them.
  static TrafficReport Bytes(Dim dim, int tier, double bytes) {
    TrafficReport r;
    r.tier_bytes[tier] = bytes;
    r.dim_tier_bytes[static_cast<int>(dim)][tier] = bytes;
    return r;
  }
  FabricPtr fabric_;
  JobSpec job_;
  // No overlap: the step is compute plus every dimension's communication.
  CommModelOptions options_ = sim::HandComputedComm();
};

TEST_F(CommModelTest, ReadsNicSpeedAndOversubscriptionFromTheFabric) {
  const CommModel m = CommModel::ForFabric(*fabric_, options_);
  EXPECT_DOUBLE_EQ(m.tier_bytes_per_s()[kNv], 450e9);      // 3600 Gb/s / 8
  EXPECT_DOUBLE_EQ(m.tier_bytes_per_s()[kLeaf], 50e9);     // 400 Gb/s / 8
  EXPECT_DOUBLE_EQ(m.tier_bytes_per_s()[kSpine], 12.5e9);  // 50e9 / 4 (4:1 leaf)
}

TEST_F(CommModelTest, SpineTrafficSlowsTheStepByTheOversubscription) {
  const CommModel m = CommModel::ForFabric(*fabric_, options_);
  EXPECT_DOUBLE_EQ(m.ComputeSeconds(job_), 1.0);
  // 16 ranks x 25e9 B each = 4e11 B per iteration.
  const TrafficReport leaf = Bytes(Dim::kDp, kLeaf, 4e11);
  const TrafficReport spine = Bytes(Dim::kDp, kSpine, 4e11);
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
  EXPECT_DOUBLE_EQ(m.Slowdown(job_, Bytes(Dim::kDp, kSpine, 4e11)), 1.0);
}

// One micro-batch; backward is 2/3 of the 1 s of compute: DP all-reduce hides behind up
// to 2/3 s of it.
TEST_F(CommModelTest, DpAllReduceHidesBehindTheBackwardPass) {
  CommModelOptions overlap = options_;
  overlap.dp_overlap = 1;
  const CommModel m = CommModel::ForFabric(*fabric_, overlap);
  // Leaf: 0.5 s of DP traffic, all hidden. Spine: 2 s, of which 2/3 s hidden.
  EXPECT_DOUBLE_EQ(m.StepSeconds(job_, Bytes(Dim::kDp, kLeaf, 4e11)), 1.0);
  EXPECT_DOUBLE_EQ(m.StepSeconds(job_, Bytes(Dim::kDp, kSpine, 4e11)), 1 + 2 - 2.0 / 3);
  EXPECT_DOUBLE_EQ(m.ReferenceStepSeconds(job_, Bytes(Dim::kDp, kSpine, 4e11)), 1.0);
  EXPECT_DOUBLE_EQ(m.Slowdown(job_, Bytes(Dim::kDp, kSpine, 4e11)), 1 + 2 - 2.0 / 3);
  // Half the overlap hides half as much.
  overlap.dp_overlap = 0.5;
  EXPECT_DOUBLE_EQ(
      CommModel::ForFabric(*fabric_, overlap).StepSeconds(job_, Bytes(Dim::kDp, kSpine, 4e11)),
      1 + 2 - 1.0 / 3);
}

// Gradients accumulate over the step's micro-batches: only the last one's backward pass
// can hide the all-reduce. mb=4: 4 s of compute, the last backward 2/3 s of it.
TEST_F(CommModelTest, DpAllReduceHidesOnlyBehindTheLastMicroBatchsBackward) {
  absl::StatusOr<JobSpec> job = ParseJobSpec(
      "tp=8,pp=1,dp=2,h=8,s=1000,b=1,layers=8,params=1e9,mb=4,tp_bytes=0,dp_bytes=25e9");
  ASSERT_TRUE(job.ok()) << job.status();
  CommModelOptions overlap = options_;
  overlap.dp_overlap = 1;
  const CommModel m = CommModel::ForFabric(*fabric_, overlap);
  ASSERT_DOUBLE_EQ(m.ComputeSeconds(*job), 4.0);
  EXPECT_DOUBLE_EQ(m.StepSeconds(*job, Bytes(Dim::kDp, kSpine, 4e11)), 4 + 2 - 2.0 / 3);
}

TEST_F(CommModelTest, PipelineAndTensorTrafficDoNotOverlap) {
  CommModelOptions overlap = options_;
  overlap.dp_overlap = 1;
  const CommModel m = CommModel::ForFabric(*fabric_, overlap);
  EXPECT_DOUBLE_EQ(m.StepSeconds(job_, Bytes(Dim::kPp, kLeaf, 4e11)), 1.5);
  EXPECT_DOUBLE_EQ(m.StepSeconds(job_, Bytes(Dim::kTp, kSpine, 4e11)), 3.0);
  // DP and PP together: only the DP part hides.
  TrafficReport both = Bytes(Dim::kPp, kLeaf, 4e11);
  both.tier_bytes[kSpine] = 4e11;
  both.dim_tier_bytes[static_cast<int>(Dim::kDp)][kSpine] = 4e11;
  EXPECT_DOUBLE_EQ(m.StepSeconds(job_, both), 1 + 0.5 + (2 - 2.0 / 3));
}

TEST_F(CommModelTest, ReportsEachDimensionsNvlinkSecondsAndNetworkBytes) {
  const CommModel m = CommModel::ForFabric(*fabric_, options_);
  TrafficReport r = Bytes(Dim::kTp, kNv, 16 * 450e9);
  r.dim_tier_bytes[static_cast<int>(Dim::kDp)][kLeaf] = 3;
  r.dim_tier_bytes[static_cast<int>(Dim::kDp)][kSpine] = 4;
  EXPECT_DOUBLE_EQ(m.NvlinkSeconds(job_, r)[static_cast<int>(Dim::kTp)], 1.0);
  EXPECT_DOUBLE_EQ(CommModel::NetworkBytes(r)[static_cast<int>(Dim::kDp)], 7);
  EXPECT_DOUBLE_EQ(CommModel::NetworkBytes(r)[static_cast<int>(Dim::kTp)], 0);
}

}  // namespace
}  // namespace topoplace::sched
