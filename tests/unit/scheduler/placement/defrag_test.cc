// Defragmentation advice: a job that waits for one block gets the moves that clear one, each
// moved job restarting where there is room, costed at its restart; a move that would leave
// a job nowhere to go is not proposed; a job that fits needs no move.
#include "scheduler/placement/defrag.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/testing/fabrics.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::sched {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

FabricPtr TwoBlocks() { return *GenerateClos(testing::TwoBlocksOfEight()); }

// A running job of `hosts` whole hosts from host `first` of `block` (tp=8, pp=hosts).
MovableJob Job(const Fabric& fabric, std::string id, int block, int first, int hosts) {
  MovableJob m{{std::move(id), 0, {}, std::nullopt},
               *ParseJobSpec(absl::StrCat("tp=8,pp=", hosts, ",dp=1"))};
  for (int i = first; i < first + hosts; ++i) {
    const Host& host = fabric.hosts()[fabric.blocks()[block].hosts[i]];
    m.job.gpus.insert(m.job.gpus.end(), host.gpus.begin(), host.gpus.end());
  }
  return m;
}

PlacementRequest AsTheDaemonPlaces(const JobSpec& job) {
  PlacementRequest request;
  request.job = job;
  request.routing.rail_local = true;
  return request;
}

Occupancy Holding(const Fabric& fabric, const std::vector<MovableJob>& running) {
  Occupancy occupancy(fabric);
  for (const MovableJob& m : running) {
    for (GpuId g : m.job.gpus) occupancy.Set(g, true);
  }
  return occupancy;
}

// Block 0: a 4-host job, 4 hosts free; block 1: two 2-host jobs, 4 hosts free. A 6-host
// job that must stay in one block waits though 8 hosts are free. One move clears room:
// the block-0 job (4 hosts) or one block-1 job (2 hosts), to the other block's free hosts.
TEST(PlanDefrag, OneMoveClearsABlockForAJobWaitingForOne) {
  const FabricPtr fabric = TwoBlocks();
  const PlacementEngine engine(fabric);
  const std::vector<MovableJob> running = {Job(*fabric, "a", 0, 0, 4), Job(*fabric, "b", 1, 0, 2),
                                           Job(*fabric, "c", 1, 2, 2)};
  const Occupancy occupancy = Holding(*fabric, running);
  const std::vector<JobSpec> waiting = {*ParseJobSpec("tp=8,pp=6,dp=1,max_tier=block")};
  ASSERT_FALSE(engine.Place(AsTheDaemonPlaces(waiting[0]), occupancy).ok()) << "it must be waiting";

  absl::StatusOr<DefragPlan> plan = PlanDefrag(engine, occupancy, running, waiting);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_THAT(plan->moves, SizeIs(1));
  const Move& move = plan->moves[0];
  EXPECT_TRUE(move.id == "a" || move.id == "b" || move.id == "c") << move.id;
  EXPECT_EQ(move.gpus, move.id == "a" ? 32 : 16);
  EXPECT_THAT(move.to_hosts, SizeIs(move.gpus / 8));
  EXPECT_DOUBLE_EQ(move.gpu_hours, move.gpus * (10.0 / 60));  // 10-minute restart
  EXPECT_DOUBLE_EQ(plan->gpu_hours, move.gpu_hours);
  ASSERT_THAT(plan->freed, SizeIs(1));
  EXPECT_THAT(plan->freed[0], HasSubstr("in block"));

  // Applying the move, the waiting job fits in one block.
  Occupancy after = occupancy;
  for (const MovableJob& m : running) {
    if (m.job.id != move.id) continue;
    for (GpuId g : m.job.gpus) after.Set(g, false);
  }
  for (const std::string& name : move.to_hosts) {
    for (GpuId g : fabric->hosts()[*fabric->FindHost(name)].gpus) after.Set(g, true);
  }
  absl::StatusOr<PlacementPlan> placed = engine.Place(AsTheDaemonPlaces(waiting[0]), after);
  EXPECT_TRUE(placed.ok()) << placed.status();
}

// Block 0: a 4-host job and 4 hosts free; block 1 full with two 4-host jobs. Clearing
// block 0 for a 6-host job would leave the 4-host job only 2 free hosts: no move proposed.
TEST(PlanDefrag, AMoveThatLeavesAJobNowhereToGoIsNotProposed) {
  const FabricPtr fabric = TwoBlocks();
  const PlacementEngine engine(fabric);
  const std::vector<MovableJob> running = {Job(*fabric, "a", 0, 0, 4), Job(*fabric, "b", 1, 0, 4),
                                           Job(*fabric, "c", 1, 4, 4)};
  const std::vector<JobSpec> waiting = {*ParseJobSpec("tp=8,pp=6,dp=1,max_tier=block")};
  absl::StatusOr<DefragPlan> plan = PlanDefrag(engine, Holding(*fabric, running), running, waiting);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(plan->moves, IsEmpty());
  EXPECT_THAT(plan->freed, IsEmpty());
  ASSERT_THAT(plan->notes, SizeIs(1));
  EXPECT_THAT(plan->notes[0], HasSubstr("nowhere else to go"));
  EXPECT_EQ(plan->gpu_hours, 0);
}

// A job that fits as things are needs no move, and takes its GPUs before the next waiting
// job is considered: two 4-host jobs fill block 0's free hosts and then need block 1's.
TEST(PlanDefrag, JobsThatFitNeedNoMoveAndTakeTheirRoomFirst) {
  const FabricPtr fabric = TwoBlocks();
  const PlacementEngine engine(fabric);
  const std::vector<MovableJob> running = {Job(*fabric, "a", 0, 0, 4), Job(*fabric, "b", 1, 0, 4)};
  const std::vector<JobSpec> waiting = {*ParseJobSpec("tp=8,pp=4,dp=1,max_tier=block"),
                                        *ParseJobSpec("tp=8,pp=4,dp=1,max_tier=block")};
  absl::StatusOr<DefragPlan> plan = PlanDefrag(engine, Holding(*fabric, running), running, waiting);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(plan->moves, IsEmpty());
  ASSERT_THAT(plan->notes, SizeIs(2));
  EXPECT_THAT(plan->notes[0], HasSubstr("fits as things are"));
  EXPECT_THAT(plan->notes[1], HasSubstr("fits as things are"));
}

}  // namespace
}  // namespace topoplace::sched
