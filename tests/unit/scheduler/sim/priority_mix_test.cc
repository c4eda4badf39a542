#include "scheduler/sim/priority_mix.h"

#include <gtest/gtest.h>

#include "scheduler/sim/synthetic_trace.h"
#include "tests/unit/scheduler/sim/tiny_fabric.h"

namespace topoplace::sched::sim {
namespace {

// 2 blocks x 4 hosts x 8 GPUs: eligible jobs have 16 (the minimum set below) to 32 GPUs.
class PriorityMixTest : public ::testing::Test {
 protected:
  PriorityMixTest() {
    absl::StatusOr<FabricPtr> fabric = GenerateClos(OneSpine("mix-2x4", 2, 4));
    EXPECT_TRUE(fabric.ok());
    fabric_ = *fabric;
    absl::StatusOr<Trace> trace = GenerateLargeJobMix(64, {.jobs = 400});
    EXPECT_TRUE(trace.ok());
    trace_ = *trace;
  }
  static bool Eligible(const TraceJob& job) {
    return job.spec.world_size() >= 16 && job.spec.nodes() <= 4;
  }
  FabricPtr fabric_;
  Trace trace_;
};

TEST_F(PriorityMixTest, ChosenJobsAreEligibleHighPriorityAndBoundToOneBlock) {
  Trace trace = trace_;
  ASSERT_TRUE(AssignPriorities(trace, *fabric_, {.share = 0.5, .min_gpus = 16}).ok());

  int chosen = 0, eligible = 0;
  for (size_t j = 0; j < trace.jobs.size(); ++j) {
    const JobSpec& spec = trace.jobs[j].spec;
    eligible += Eligible(trace.jobs[j]);
    if (spec.priority == 0) {
      EXPECT_EQ(spec.max_tier, trace_.jobs[j].spec.max_tier) << "others keep their constraints";
      continue;
    }
    ++chosen;
    EXPECT_TRUE(Eligible(trace.jobs[j])) << "job " << j;
    EXPECT_EQ(spec.priority, 10);
    EXPECT_EQ(spec.max_tier, MaxTier::kBlock);
    EXPECT_EQ(spec.mode, ConstraintMode::kHard);
  }
  ASSERT_GT(eligible, 100);
  EXPECT_NEAR(static_cast<double>(chosen) / eligible, 0.5, 0.1);
}

TEST_F(PriorityMixTest, TheDrawDependsOnTheSeedOnly) {
  Trace a = trace_, b = trace_, c = trace_;
  ASSERT_TRUE(AssignPriorities(a, *fabric_, {.share = 0.3, .min_gpus = 16, .seed = 7}).ok());
  ASSERT_TRUE(AssignPriorities(b, *fabric_, {.share = 0.3, .min_gpus = 16, .seed = 7}).ok());
  ASSERT_TRUE(AssignPriorities(c, *fabric_, {.share = 0.3, .min_gpus = 16, .seed = 8}).ok());
  int same_ab = 0, same_ac = 0;
  for (size_t j = 0; j < a.jobs.size(); ++j) {
    same_ab += a.jobs[j].spec.priority == b.jobs[j].spec.priority;
    same_ac += a.jobs[j].spec.priority == c.jobs[j].spec.priority;
  }
  EXPECT_EQ(same_ab, static_cast<int>(a.jobs.size()));
  EXPECT_LT(same_ac, static_cast<int>(a.jobs.size()));
}

TEST_F(PriorityMixTest, ShareZeroChangesNothingAndBadValuesAreRefused) {
  Trace trace = trace_;
  ASSERT_TRUE(AssignPriorities(trace, *fabric_, {}).ok());
  for (size_t j = 0; j < trace.jobs.size(); ++j) EXPECT_EQ(trace.jobs[j].spec.priority, 0);

  EXPECT_EQ(AssignPriorities(trace, *fabric_, {.share = 1.5}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(AssignPriorities(trace, *fabric_, {.share = 0.5, .min_gpus = 0}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(AssignPriorities(trace, *fabric_, {.share = 0.5, .priority = 0}).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace topoplace::sched::sim
