// Link sharing's progress by hand, as in simulator_test's SharedLinks case: 3 blocks x 2
// hosts x 8 GPUs, one 400G uplink per rail leaf (tiny_fabric.h). J1 (hosts 1 and 2) and
// J2 (hosts 3 and 4) both cross block 1's uplinks. Per iteration 1 s of compute and 25e9 B
// per rank on the network: alone 0.5 s (the reference step, 1.5 s: rate 1); together each
// gets half of the uplinks, a 2 s step, rate 0.75. J1 has 75 s of work, J2 150 s.
#include "scheduler/sim/shared_progress.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "scheduler/job/job_spec.h"
#include "tests/unit/scheduler/sim/tiny_fabric.h"

namespace topoplace::sched::sim {
namespace {

class SharedProgressTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fabric_ = *TinySharedUplinkFabric();
    comm_.emplace(CommModel::ForFabric(*fabric_, HandComputedComm()));
    engine_.emplace(fabric_);
    spec_ = *ParseJobSpec(
        "tp=8,pp=1,dp=2,h=8,s=1000,b=1,layers=8,params=1e9,mb=1,tp_bytes=0,dp_bytes=25e9");
  }

  // The plan of a job on hosts `a` and `b` (by index), with its link loads.
  PlacementPlan PlanOn(int a, int b) {
    PlacementRequest request;
    request.job = spec_;
    request.job.hosts = {fabric_->hosts()[a].name, fabric_->hosts()[b].name};
    request.link_loads = true;
    absl::StatusOr<PlacementPlan> plan = engine_->Place(request, Occupancy(*fabric_));
    EXPECT_TRUE(plan.ok()) << plan.status();
    return *plan;
  }

  // Job j starts at 0 on `plan` with `work` seconds at reference speed (ending then on its
  // own), its reference step its plan's own bytes at leaf speed.
  std::vector<EndMove> Start(SharedProgress& shared, size_t j, const PlacementPlan& plan,
                             double work) {
    return shared.Start(j, spec_, plan, comm_->ReferenceStepSeconds(plan.job, plan.traffic), work,
                        work, 0);
  }

  static std::map<size_t, double> Ends(const std::vector<EndMove>& moved) {
    std::map<size_t, double> ends;
    for (const EndMove& m : moved) ends[m.job] = m.to;
    return ends;
  }

  FabricPtr fabric_;
  std::optional<CommModel> comm_;
  std::optional<PlacementEngine> engine_;
  JobSpec spec_;
};

TEST_F(SharedProgressTest, JobsOnACommonUplinkRunAtTheirShareAndSpeedUpWhenOneStops) {
  SharedProgress shared(*fabric_, *comm_, 3);
  EXPECT_THAT(Ends(Start(shared, 1, PlanOn(1, 2), 75)),
              ::testing::ElementsAre(::testing::Pair(1, ::testing::DoubleNear(75, 1e-9))))
      << "alone at full speed";
  const std::map<size_t, double> both = Ends(Start(shared, 2, PlanOn(3, 4), 150));
  ASSERT_EQ(both.size(), 2u) << "J2 slows J1 too";
  EXPECT_NEAR(both.at(1), 100, 1e-6) << "75 s of work at rate 0.75";
  EXPECT_NEAR(both.at(2), 200, 1e-6);
  EXPECT_TRUE(shared.tracked(1));
  EXPECT_NEAR(shared.end(1), 100, 1e-6);
  EXPECT_NEAR(shared.WorkDone(2, 40), 30, 1e-9);

  const std::map<size_t, double> after = Ends(shared.Stop(1, 100));
  ASSERT_EQ(after.size(), 1u);
  EXPECT_NEAR(after.at(2), 175, 1e-6) << "75 s done at 0.75, the other 75 alone at 1";
  EXPECT_FALSE(shared.tracked(1));
  EXPECT_TRUE(shared.Stop(1, 100).empty()) << "stopping twice moves nothing";
}

TEST_F(SharedProgressTest, AHalvedUplinkSlowsTheJobsOnItAndAPlanWithoutLinksIsNotTracked) {
  SharedProgress shared(*fabric_, *comm_, 3);
  PlacementPlan plan = PlanOn(1, 2);
  Start(shared, 1, plan, 75);
  FaultState faults(*fabric_);
  std::vector<LinkId> uplinks;
  for (const LinkLoad& load : plan.links) {
    const Link& link = fabric_->links()[load.link];
    if (link.a.kind == Endpoint::Kind::kSwitch && link.b.kind == Endpoint::Kind::kSwitch) {
      faults.Begin({.time_s = 0,
                    .element = {.type = FaultElement::Type::kLink, .id = load.link},
                    .kind = FaultKind::kDegrade,
                    .duration_s = 10,
                    .capacity = 0.5});
      uplinks.push_back(load.link);
    }
  }
  ASSERT_FALSE(uplinks.empty()) << "J1 crosses uplinks";
  const std::map<size_t, double> slowed = Ends(shared.SetCapacity(uplinks, faults, 0));
  ASSERT_EQ(slowed.size(), 1u);
  EXPECT_NEAR(slowed.at(1), 100, 1e-6) << "half the uplink: as if shared with another job";

  PlacementPlan silent = PlanOn(3, 4);
  silent.links.clear();
  EXPECT_TRUE(Start(shared, 2, silent, 10).empty());
  EXPECT_FALSE(shared.tracked(2));
}

}  // namespace
}  // namespace topoplace::sched::sim
