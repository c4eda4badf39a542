// Look-ahead's choices: a job needs a block when it is hard-bound to one and takes at least
// half the smallest; the blocks kept for such jobs are those whole free soonest.
#include "scheduler/sim/look_ahead.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "scheduler/job/job_spec.h"
#include "tests/unit/scheduler/sim/tiny_fabric.h"

namespace topoplace::sched::sim {
namespace {

using ::testing::ElementsAre;

TEST(LookAhead, AJobNeedsABlockWhenHardBoundToOneAndHalfItsSizeOrMore) {
  absl::StatusOr<FabricPtr> fabric = GenerateClos(OneSpine("three-blocks", 3, 4));
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  Trace trace;
  for (const char* spec : {"tp=8,pp=1,dp=2,max_tier=block", "tp=8,pp=1,dp=1,max_tier=block",
                           "tp=8,pp=1,dp=2,max_tier=block,mode=soft", "tp=8,pp=1,dp=4"}) {
    trace.jobs.push_back({.spec = *ParseJobSpec(spec)});
  }
  EXPECT_THAT(JobsNeedingABlock(**fabric, trace), ElementsAre(true, false, false, false));

  // Blocks 0, 1, 2: block 0 busy until 50, block 2 until 20, block 1 idle.
  const std::vector<std::vector<GpuId>> gpus = {
      {(*fabric)->hosts()[(*fabric)->blocks()[0].hosts[0]].gpus[0]},
      {(*fabric)->hosts()[(*fabric)->blocks()[2].hosts[1]].gpus[3]}};
  const std::set<std::pair<double, size_t>> running = {{20, 1}, {50, 0}};
  const auto of = [&](size_t j) { return std::span<const GpuId>(gpus[j]); };
  EXPECT_THAT(BlocksWholeSoonest(**fabric, running, of, 1), ElementsAre(1));
  EXPECT_THAT(BlocksWholeSoonest(**fabric, running, of, 2), ElementsAre(1, 2));
  EXPECT_THAT(BlocksWholeSoonest(**fabric, running, of, 5), ElementsAre(0, 1, 2));
}

}  // namespace
}  // namespace topoplace::sched::sim
