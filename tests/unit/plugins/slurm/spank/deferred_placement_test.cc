#include "plugins/slurm/spank/deferred_placement.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "scheduler/job/job_spec.h"

namespace topoplace::slurm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

TEST(DeferredPlacement, HardBlockTierWithMaxWaitAsksSlurmForOneSwitchThatLong) {
  absl::StatusOr<DeferredSubmission> d =
      DeferSubmission("tp=8,pp=2,dp=2,max_tier=block,max_wait=90.5");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->nodes, 4);
  EXPECT_EQ(d->switches, "1@91");  // Slurm counts whole seconds: never shorter than asked
  EXPECT_THAT(d->ControlVariables(),
              ElementsAre(Pair("TOPOPLACE_DEFERRED_SPEC", d->spec), Pair("TOPOPLACE_NODES", "4"),
                          Pair("TOPOPLACE_SWITCHES", "1@91")));
  EXPECT_THAT(d->Summary(), HasSubstr("4 nodes inside one block for at most 91 s"));
  EXPECT_EQ(DeferSubmission("tp=8,pp=1,dp=1,max_tier=leaf")->switches, "1");
}

TEST(DeferredPlacement, SoftOrWiderTiersAskSlurmForNoSwitchLimit) {
  for (const char* spec : {"tp=8,pp=2,dp=1,max_tier=block,mode=soft,max_wait=60",
                           "tp=8,pp=2,dp=1,max_tier=pod,max_wait=60", "tp=8,pp=2,dp=1"}) {
    absl::StatusOr<DeferredSubmission> d = DeferSubmission(spec);
    ASSERT_TRUE(d.ok()) << d.status();
    EXPECT_EQ(d->switches, "") << spec;
    EXPECT_EQ(d->ControlVariables().size(), 2u) << spec;
  }
}

TEST(DeferredPlacement, ASegmentThatSplitsTheJobIsPassedToSlurmAsItsSegment) {
  absl::StatusOr<DeferredSubmission> d =
      DeferSubmission("tp=4,pp=1,dp=16,gpus_per_node=4,segment=4");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->segment, 4);
  EXPECT_THAT(d->ControlVariables(),
              ElementsAre(Pair("TOPOPLACE_DEFERRED_SPEC", d->spec), Pair("TOPOPLACE_NODES", "16"),
                          Pair("TOPOPLACE_SEGMENT", "4")));
  EXPECT_THAT(d->Summary(), HasSubstr("in segments of 4 nodes (--segment=4)"));
  // Without segment=, a job whose expert groups span nodes asks for them as segments: tp=4,
  // ep=16 on 4-GPU trays is 16 trays a group, 32 trays in all.
  EXPECT_EQ(DeferSubmission("tp=4,pp=2,dp=1,ep=16,gpus_per_node=4")->segment, 16);
  EXPECT_EQ(DeferSubmission("tp=8,pp=1,dp=4")->segment, 0) << "TP inside the node: no segment";
  // A segment as large as the job splits nothing (Slurm ignores it): not passed.
  EXPECT_EQ(DeferSubmission("tp=8,pp=1,dp=2,segment=2")->segment, 0);
  EXPECT_EQ(DeferSubmission("tp=8,pp=1,dp=2,segment=8")->ControlVariables().size(), 2u);
}

TEST(DeferredPlacement, StartSpecPlacesSoftlyOnExactlyTheJobsNodesUnderTheirFabricNames) {
  absl::StatusOr<plugins::NodeNameMap> map =
      plugins::NodeNameMap::Parse("b00-n001 gpu007\n", "map");
  ASSERT_TRUE(map.ok()) << map.status();
  absl::StatusOr<StartPlacement> start =
      StartSpec("tp=8,pp=2,dp=1,max_tier=block,max_wait=60", "b00-n[000,003],gpu007", *map);
  ASSERT_TRUE(start.ok()) << start.status();
  absl::StatusOr<sched::JobSpec> job = sched::ParseJobSpec(start->spec);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->mode, sched::ConstraintMode::kSoft);
  EXPECT_EQ(job->max_tier, sched::MaxTier::kBlock);
  EXPECT_TRUE(job->hosts.empty()) << "the hosts travel beside the spec";
  EXPECT_THAT(start->hosts, ElementsAre("b00-n000", "b00-n003", "b00-n001"));
}

// Hardening finding 8: a deferred job of ~460 nodes put its node list into the spec as
// hosts=, past the daemon's 4 KiB spec limit, and ran without a plan. The spec now stays
// the size of the submitted one whatever the node count.
TEST(DeferredPlacement, AStartSpecStaysSmallForAJobOfThousandsOfNodes) {
  absl::StatusOr<StartPlacement> start =
      StartSpec("tp=8,pp=4,dp=1000,max_tier=pod", "b[00-99]-n[000-039]", plugins::NodeNameMap());
  ASSERT_TRUE(start.ok()) << start.status();
  EXPECT_EQ(start->hosts.size(), 4000u);
  EXPECT_LT(start->spec.size(), 512u) << start->spec;
}

TEST(DeferredPlacement, BadInputIsInvalidArgumentNamingIt) {
  EXPECT_THAT(std::string(DeferSubmission("tp=0,dp=1,pp=1").status().message()),
              HasSubstr("--topoplace: job spec field 'tp'"));
  absl::Status bad_list =
      StartSpec("tp=8,pp=1,dp=1", "b00-n[003-001]", plugins::NodeNameMap()).status();
  EXPECT_EQ(bad_list.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad_list.message()), HasSubstr("the job's node list"));
}

TEST(DeferredPlacement, BatchTaskCountIsNodesTimesTasksPerNode) {
  EXPECT_EQ(DeferredTaskCount("2", "8"), 16);
  EXPECT_EQ(DeferredTaskCount("2", ""), std::nullopt);  // no --ntasks-per-node: leave it
  EXPECT_EQ(DeferredTaskCount("x", "8"), std::nullopt);
  EXPECT_EQ(DeferredTaskCount("0", "8"), std::nullopt);
}

TEST(DeferredPlacement, EveryCallerOfOneJobSharesOneIdempotencyKey) {
  EXPECT_EQ(StartRequestId(4242), StartRequestId(4242));
  EXPECT_NE(StartRequestId(4242), StartRequestId(4243));
}

}  // namespace
}  // namespace topoplace::slurm
