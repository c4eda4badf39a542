// The dry runs beside Reserve, on a real SQLite ledger and the real engine: Place prepares
// the job as Reserve does (restart exclusions, the uplink load known now, link loads) and
// holds nothing; the victims of a preemption and the jobs a defrag moves come with the
// external ids they were bound to; a refusal says what would free room for the job.
#include "scheduler/reserve/advisor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "scheduler/job/job_spec.h"
#include "tests/unit/scheduler/reserve/use_case_test_base.h"

namespace topoplace::sched {
namespace {

class AdvisorTest : public UseCaseTestBase {
 protected:
  // Holds one node of `host` for a job of `priority`, bound to `external_id`.
  void Run(const std::string& host, int priority, const std::string& external_id) {
    const Reserver reserver(Ports());
    ReserveCommand command;
    command.placement.job =
        *ParseJobSpec(absl::StrCat("tp=8,pp=1,dp=1,priority=", priority, ",hosts=", host));
    command.ttl = absl::Minutes(5);
    absl::StatusOr<ReserveOutcome> held = reserver.Reserve(command);
    ASSERT_TRUE(held.ok()) << held.status();
    ASSERT_TRUE(ledger_->Commit(held->allocation.id, external_id).ok());
  }
};

TEST_F(AdvisorTest, PlacePreparesTheJobAsReserveDoesAndHoldsNothing) {
  ReserverPorts ports = Ports();
  port_.uplink_busy = {0.25};
  port_.exclude_failed = [](JobSpec& job) {
    job.exclude.push_back("b00-n000");
    return absl::OkStatus();
  };
  const Advisor advisor(ports);
  PlacementRequest request;
  request.job = *ParseJobSpec("tp=8,pp=2,dp=1");
  absl::StatusOr<PlacementPlan> plan = advisor.Place(request);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(last_request_.link_loads);
  EXPECT_EQ(last_request_.uplink_busy, std::vector<double>{0.25});
  EXPECT_THAT(last_request_.job.exclude, ::testing::Contains("b00-n000"));
  EXPECT_THAT(plan->node_hosts,
              ::testing::Not(::testing::Contains(*fabric_->FindHost("b00-n000"))));
  int live = 0;
  ledger_->ForEachLive([&live](const ledger::Allocation&) { ++live; });
  EXPECT_EQ(live, 0) << "a dry run holds nothing";
}

TEST_F(AdvisorTest, VictimsComeWithTheExternalIdsTheyWereBoundTo) {
  Run("b00-n000", /*priority=*/0, "slurm:7");
  Run("b01-n000", /*priority=*/0, "slurm:8");
  // A whole block is wanted at a higher priority: one of the two must stop.
  PlacementRequest request;
  request.job = *ParseJobSpec("tp=8,pp=4,dp=1,max_tier=block,priority=10");
  const Advisor advisor(Ports());
  absl::StatusOr<PreemptionAdvice> advice = advisor.PlaceWithPreemption(request);
  ASSERT_TRUE(advice.ok()) << advice.status();
  ASSERT_EQ(advice->preemption.victims.size(), 1u);
  ASSERT_EQ(advice->external_ids.size(), 1u);
  absl::StatusOr<ledger::Allocation> victim = ledger_->Get(advice->preemption.victims[0].id);
  ASSERT_TRUE(victim.ok()) << victim.status();
  EXPECT_EQ(advice->external_ids[0], victim->external_id);
  EXPECT_THAT(advice->external_ids[0], ::testing::AnyOf("slurm:7", "slurm:8"));
}

TEST_F(AdvisorTest, MovesComeWithTheExternalIdsTheyWereBoundTo) {
  Run("b00-n000", /*priority=*/0, "slurm:7");
  Run("b01-n000", /*priority=*/0, "slurm:8");
  // A whole block is wanted: moving one of the two out of its block makes room.
  const std::vector<JobSpec> waiting = {*ParseJobSpec("tp=8,pp=4,dp=1,max_tier=block")};
  const Advisor advisor(Ports());
  absl::StatusOr<DefragAdvice> advice = advisor.Defrag(waiting, DefragOptions());
  ASSERT_TRUE(advice.ok()) << advice.status();
  ASSERT_FALSE(advice->defrag.moves.empty()) << "no move found";
  ASSERT_EQ(advice->external_ids.size(), advice->defrag.moves.size());
  for (size_t i = 0; i < advice->defrag.moves.size(); ++i) {
    absl::StatusOr<ledger::Allocation> moved = ledger_->Get(advice->defrag.moves[i].id);
    ASSERT_TRUE(moved.ok()) << moved.status();
    EXPECT_EQ(advice->external_ids[i], moved->external_id);
    EXPECT_THAT(advice->external_ids[i], ::testing::AnyOf("slurm:7", "slurm:8"));
  }
}

// The refusal of a whole-block job on the two blocks Run leaves one host short each.
absl::Status RefusalOf(const Advisor& advisor, const PlacementRequest& request) {
  absl::StatusOr<PlacementPlan> plan = advisor.Place(request);
  return plan.ok() ? absl::OkStatus() : plan.status();
}

TEST_F(AdvisorTest, ARefusalSaysWhichLowerPriorityAllocationsToStopWouldFreeRoom) {
  Run("b00-n000", /*priority=*/0, "slurm:7");
  Run("b01-n000", /*priority=*/0, "slurm:8");
  PlacementRequest request;
  request.job = *ParseJobSpec("tp=8,pp=4,dp=1,max_tier=block,priority=10");
  const Advisor advisor(Ports());
  const absl::Status refused = RefusalOf(advisor, request);
  ASSERT_TRUE(absl::IsResourceExhausted(refused)) << refused;

  const absl::Status worded = advisor.WithWhatWouldFree(refused, request);

  EXPECT_TRUE(absl::IsResourceExhausted(worded));
  EXPECT_THAT(std::string(worded.message()), ::testing::StartsWith(std::string(refused.message())));
  EXPECT_THAT(std::string(worded.message()),
              ::testing::ContainsRegex("; what would free it: stopping slurm:[78] \\(priority 0\\) "
                                       "frees block [01]$"));
}

TEST_F(AdvisorTest, ARefusalOfAJobThatMayStopNobodySaysWhichMoveWouldFreeRoom) {
  Run("b00-n000", /*priority=*/0, "slurm:7");
  Run("b01-n000", /*priority=*/0, "slurm:8");
  PlacementRequest request;
  request.job = *ParseJobSpec("tp=8,pp=4,dp=1,max_tier=block");
  const Advisor advisor(Ports());

  const absl::Status worded = advisor.WithWhatWouldFree(RefusalOf(advisor, request), request);

  EXPECT_THAT(std::string(worded.message()),
              ::testing::ContainsRegex("; what would free it: moving slurm:[78] \\(8 GPUs\\)"));
}

TEST_F(AdvisorTest, ARefusalNothingCanHelpSaysSoAndOtherErrorsPassUnchanged) {
  PlacementRequest request;
  // More nodes than the fabric has hosts: no stop and no move makes room.
  request.job = *ParseJobSpec("tp=8,pp=8,dp=4");
  const Advisor advisor(Ports());
  const absl::Status refused = RefusalOf(advisor, request);
  ASSERT_TRUE(absl::IsResourceExhausted(refused)) << refused;

  EXPECT_THAT(std::string(advisor.WithWhatWouldFree(refused, request).message()),
              ::testing::HasSubstr("; what would free it: no allocation of lower priority to stop "
                                   "and no move of a running one frees room now"));
  const absl::Status bad = absl::InvalidArgumentError("tp: expected a power of two");
  EXPECT_EQ(advisor.WithWhatWouldFree(bad, request), bad);
}

}  // namespace
}  // namespace topoplace::sched
