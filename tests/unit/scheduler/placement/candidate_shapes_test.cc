// The engine's shape stage (scheduler/placement/candidate_shapes.h), on gb200-nvl72 (racks
// of 18 four-GPU trays, each rack one NVLink domain), where a tp=8 job's TP group spans two
// consecutive trays: hosts of one rack are put side by side, a TP group that still spans
// racks turns the candidate down, twins are marked, and a wrong host count is a policy bug.
#include "scheduler/placement/candidate_shapes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "scheduler/placement/engine.h"
#include "tests/testing/fabrics.h"

namespace topoplace::sched {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class CandidateShapesTest : public ::testing::Test {
 protected:
  CandidateShapesTest()
      : fabric_(testing::Preset("gb200-nvl72")),
        job_(*ParseJobSpec("tp=8,pp=1,dp=2,gpus_per_node=4,model=70b")),
        inv_(*Inventory::Build(*fabric_, Occupancy(*fabric_), PlacementEngine(fabric_).health(),
                               job_)) {}

  // Tray i of rack r.
  HostId Tray(int r, int i) const { return fabric_->nvlink_domains()[r][i]; }

  const FabricPtr& fabric_;
  JobSpec job_;
  Inventory inv_;
};

TEST_F(CandidateShapesTest, HostsOfOneRackArePutSideBySideSoEachTpGroupStaysInIt) {
  std::vector<Candidate> candidates = {
      {{Tray(0, 0), Tray(1, 0), Tray(0, 1), Tray(1, 1)}, "alternating racks"}};
  absl::StatusOr<CandidateShapes> shapes = CheckShapes(*fabric_, inv_, job_, "p", candidates);
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_THAT(shapes->order, ElementsAre(0));
  EXPECT_THAT(candidates[0].node_hosts,
              ElementsAre(Tray(0, 0), Tray(0, 1), Tray(1, 0), Tray(1, 1)));
  EXPECT_FALSE(shapes->rejected[0]);
}

TEST_F(CandidateShapesTest, ACandidateWhoseTpGroupSpansRacksIsTurnedDownSayingWhich) {
  const JobSpec one_group = *ParseJobSpec("tp=8,pp=1,dp=1,gpus_per_node=4,model=70b");
  std::vector<Candidate> candidates = {{{Tray(0, 0), Tray(1, 0)}, "one tray in each"},
                                       {{Tray(2, 0), Tray(2, 1)}, "one rack"}};
  absl::StatusOr<CandidateShapes> shapes = CheckShapes(*fabric_, inv_, one_group, "p", candidates);
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_THAT(shapes->order, ElementsAre(1));
  ASSERT_TRUE(shapes->rejected[0]);
  EXPECT_THAT(*shapes->rejected[0], HasSubstr("one tray in each: TP group 0 (tp=8) spans"));
}

TEST_F(CandidateShapesTest, ACandidateWithAnEarlierOnesVeryHostsIsMarkedItsTwin) {
  const std::vector<HostId> hosts = {Tray(3, 0), Tray(3, 1), Tray(3, 2), Tray(3, 3)};
  std::vector<Candidate> candidates = {
      {hosts, "a"}, {{Tray(4, 0), Tray(4, 1), Tray(4, 2), Tray(4, 3)}, "b"}, {hosts, "a again"}};
  absl::StatusOr<CandidateShapes> shapes = CheckShapes(*fabric_, inv_, job_, "p", candidates);
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_THAT(shapes->order, ElementsAre(0, 1, 2));
  EXPECT_THAT(shapes->same_as, ElementsAre(-1, -1, 0));
}

TEST_F(CandidateShapesTest, AWrongHostCountIsThePolicysBugNamed) {
  std::vector<Candidate> candidates = {{{Tray(0, 0)}, "short"}};
  absl::StatusOr<CandidateShapes> shapes = CheckShapes(*fabric_, inv_, job_, "buggy", candidates);
  EXPECT_EQ(shapes.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(shapes.status().message(), HasSubstr("policy buggy proposed 1 hosts for 4 nodes"));
}

}  // namespace
}  // namespace topoplace::sched
