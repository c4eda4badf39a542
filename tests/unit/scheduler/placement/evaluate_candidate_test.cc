// The evaluation stage (scheduler/placement/evaluate_candidate.h): the max_tier rule at
// each tier, and one candidate in full on superpod-4su (4 blocks of 32 eight-GPU hosts):
// a hard max_tier turns it down naming the rule, a soft one keeps it at 1e6 more, its
// cost is the scorers' weighted sum, and a host the rank map cannot use is the policy's bug.
#include "scheduler/placement/evaluate_candidate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "tests/unit/scheduler/placement/choose_stage_fixture.h"

namespace topoplace::sched {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;

JobSpec Spec(const std::string& text) { return *ParseJobSpec(text); }

TEST(MaxTierViolationTest, EachTierNamesWhatItsPlanSpans) {
  PlanFootprint two_blocks{.nodes = 4, .leaves_used = 8, .blocks_used = 2, .pods_used = 1};
  TrafficReport traffic;
  EXPECT_THAT(MaxTierViolation(Spec("tp=8,pp=1,dp=4,max_tier=block"), two_blocks, traffic),
              Optional(std::string("max_tier=block: plan spans 2 blocks")));
  EXPECT_EQ(MaxTierViolation(Spec("tp=8,pp=1,dp=4,max_tier=pod"), two_blocks, traffic),
            std::nullopt);
  EXPECT_EQ(MaxTierViolation(Spec("tp=8,pp=1,dp=4,max_tier=cluster"), two_blocks, traffic),
            std::nullopt);
  EXPECT_THAT(MaxTierViolation(Spec("tp=8,pp=1,dp=4,max_tier=leaf"), two_blocks, traffic),
              Optional(HasSubstr("max_tier=leaf: plan spans 2 block(s)")));
  PlanFootprint two_pods = two_blocks;
  two_pods.pods_used = 2;
  EXPECT_THAT(MaxTierViolation(Spec("tp=8,pp=1,dp=4,max_tier=pod"), two_pods, traffic),
              Optional(std::string("max_tier=pod: plan spans 2 pods")));
}

TEST(MaxTierViolationTest, NvlinkCountsDomainsOrHostsWhereEachHostIsItsOwn) {
  const JobSpec job = Spec("tp=4,pp=1,dp=4,gpus_per_node=4,max_tier=nvlink");
  TrafficReport traffic;
  EXPECT_THAT(MaxTierViolation(job, {.nodes = 4, .nvlink_domains_used = 2}, traffic),
              Optional(std::string("max_tier=nvlink: plan spans 2 NVLink domains")));
  EXPECT_EQ(MaxTierViolation(job, {.nodes = 4, .nvlink_domains_used = 1}, traffic), std::nullopt);
  EXPECT_THAT(MaxTierViolation(job, {.nodes = 4, .nvlink_domains_used = 0}, traffic),
              Optional(HasSubstr("plan spans 4 hosts and NVLink stays inside each host")));
  EXPECT_EQ(MaxTierViolation(job, {.nodes = 1, .nvlink_domains_used = 0}, traffic), std::nullopt);
}

TEST(EvaluateCandidateTest, AHardMaxTierTurnsACandidateAcrossBlocksDownNamingIt) {
  testing::ChooseStageFixture f("superpod-4su", "tp=8,pp=1,dp=4,max_tier=block,mode=hard");
  const std::vector<HostId> hosts = f.AcrossTwoBlocks(2);
  std::optional<std::string> rejected;
  absl::StatusOr<std::optional<EvaluatedCandidate>> ev =
      EvaluateCandidate(f.stage(), f.occupancy(), {hosts, "two blocks"}, 0, rejected);
  ASSERT_TRUE(ev.ok()) << ev.status();
  EXPECT_EQ(*ev, std::nullopt);
  EXPECT_THAT(rejected, Optional(std::string("two blocks: max_tier=block: plan spans 2 blocks "
                                             "(hard)")));
}

TEST(EvaluateCandidateTest, ASoftMaxTierKeepsItAtAMillionMoreThanItsScoresSum) {
  testing::ChooseStageFixture f("superpod-4su", "tp=8,pp=1,dp=4,max_tier=block,mode=soft");
  const std::vector<HostId> hosts = f.AcrossTwoBlocks(2);
  std::optional<std::string> rejected;
  absl::StatusOr<std::optional<EvaluatedCandidate>> ev =
      EvaluateCandidate(f.stage(), f.occupancy(), {hosts, "two blocks"}, 3, rejected);
  ASSERT_TRUE(ev.ok()) << ev.status();
  ASSERT_TRUE(ev->has_value());
  const EvaluatedCandidate& e = **ev;
  EXPECT_EQ(rejected, std::nullopt);
  EXPECT_EQ(e.index, 3u);
  EXPECT_THAT(e.relaxed, Optional(std::string("max_tier=block: plan spans 2 blocks")));
  EXPECT_EQ(e.footprint.blocks_used, 2);
  EXPECT_EQ(e.slots.size(), 32u);
  EXPECT_GT(e.traffic.spine_bytes(), 0);
  ASSERT_EQ(e.scores.size(), f.stage().scorers.size());
  double sum = 0;
  for (size_t s = 0; s < e.scores.size(); ++s) {
    sum += f.stage().scorers[s].weight * e.scores[s].normalized;
  }
  EXPECT_DOUBLE_EQ(e.cost, sum + 1e6);
}

TEST(EvaluateCandidateTest, OneBlockKeepsTheRuleAndCostsLessThanTwo) {
  testing::ChooseStageFixture f("superpod-4su", "tp=8,pp=1,dp=4,max_tier=block,mode=soft");
  const std::vector<HostId> split = f.AcrossTwoBlocks(2);
  std::optional<std::string> rejected;
  absl::StatusOr<std::optional<EvaluatedCandidate>> one =
      EvaluateCandidate(f.stage(), f.occupancy(), {f.BlockHosts(0, 4), "one block"}, 0, rejected);
  absl::StatusOr<std::optional<EvaluatedCandidate>> two =
      EvaluateCandidate(f.stage(), f.occupancy(), {split, "two blocks"}, 1, rejected);
  ASSERT_TRUE(one.ok() && one->has_value() && two.ok() && two->has_value());
  EXPECT_EQ((*one)->relaxed, std::nullopt);
  EXPECT_EQ((*one)->traffic.spine_bytes(), 0);
  EXPECT_LT((*one)->cost + 1e6, (*two)->cost);
}

TEST(EvaluateCandidateTest, AHostTheRankMapCannotUseIsThePolicysBug) {
  testing::ChooseStageFixture f("superpod-4su", "tp=8,pp=1,dp=4");
  const std::vector<HostId> hosts = f.BlockHosts(0, 4);
  Occupancy busy = f.occupancy();
  busy.SetHost(hosts[3], true);  // a host without free GPUs
  std::optional<std::string> rejected;
  absl::StatusOr<std::optional<EvaluatedCandidate>> ev =
      EvaluateCandidate(f.stage(), busy, {hosts, "bad"}, 0, rejected);
  EXPECT_EQ(ev.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(ev.status().message(), HasSubstr("policy test chose an unusable host"));
}

}  // namespace
}  // namespace topoplace::sched
