// The sketch stage (scheduler/placement/candidate_bounds.h) on superpod-4su: each
// candidate's bound is at most its cost in full, candidates are ordered by their bounds
// (the one inside a block first), and with one candidate or a negative weight there is
// nothing to bound.
#include "scheduler/placement/candidate_bounds.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "scheduler/placement/evaluate_candidate.h"
#include "tests/unit/scheduler/placement/choose_stage_fixture.h"

namespace topoplace::sched {
namespace {

using ::testing::Each;
using ::testing::ElementsAre;

std::vector<Candidate> SplitThenWhole(const testing::ChooseStageFixture& f) {
  const std::vector<HostId> split = f.AcrossTwoBlocks(2);
  return {{split, "two blocks"}, {f.BlockHosts(2, 4), "one block"}};
}

TEST(CandidateBoundsTest, EachBoundIsAtMostItsCostAndTheCheaperBoundComesFirst) {
  testing::ChooseStageFixture f("superpod-4su", "tp=8,pp=1,dp=4");
  const std::vector<Candidate> candidates = SplitThenWhole(f);
  std::vector<size_t> order = {0, 1};
  const std::vector<double> bound = CandidateLowerBounds(f.stage(), f.climb(), candidates, order);
  ASSERT_EQ(bound.size(), 2u);
  EXPECT_THAT(order, ElementsAre(1, 0));
  EXPECT_LT(bound[1], bound[0]);
  for (size_t i = 0; i < candidates.size(); ++i) {
    std::optional<std::string> rejected;
    absl::StatusOr<std::optional<EvaluatedCandidate>> ev =
        EvaluateCandidate(f.stage(), f.occupancy(), candidates[i], i, rejected);
    ASSERT_TRUE(ev.ok() && ev->has_value());
    EXPECT_LE(bound[i], (*ev)->cost) << candidates[i].how;
  }
}

TEST(CandidateBoundsTest, OneCandidateIsNotBounded) {
  testing::ChooseStageFixture f("superpod-4su", "tp=8,pp=1,dp=4");
  std::vector<size_t> order = {0};
  const std::vector<Candidate> one = {SplitThenWhole(f)[0]};
  EXPECT_THAT(CandidateLowerBounds(f.stage(), f.climb(), one, order), ElementsAre(0.0));
  EXPECT_THAT(order, ElementsAre(0));
}

TEST(CandidateBoundsTest, ANegativeWeightMakesTheBoundsNoBound) {
  // The registry refuses negative weights (PluginRegistry::MakeScorers); the stage does not
  // rely on it.
  testing::ChooseStageFixture f("superpod-4su", "tp=8,pp=1,dp=4");
  std::vector<WeightedScorer> scorers = *BuiltinPlugins().MakeScorers({});
  scorers.front().weight = -1;
  const ChooseStage& s = f.stage();
  const ChooseStage negative{s.request, s.ctx, scorers, s.router, s.health, s.tiers, s.policy};
  std::vector<size_t> order = {0, 1};
  const std::vector<double> bound =
      CandidateLowerBounds(negative, f.climb(), SplitThenWhole(f), order);
  EXPECT_THAT(bound, Each(0.0));
  EXPECT_THAT(order, ElementsAre(0, 1));
}

}  // namespace
}  // namespace topoplace::sched
