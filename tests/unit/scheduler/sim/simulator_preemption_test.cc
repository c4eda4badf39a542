// Priorities, preemption and look-ahead in the event loop (issue 34), on 2 blocks x 4
// hosts x 8 GPUs (tiny_fabric.h) under first-fit, whose placements are computed by hand.
//
// The preemption case: four 2-host jobs of priority 0 arrive one second apart and fill
// the fabric in host order:
//   J0 -> A0 A1, ends 36,000     J1 -> A2 A3, ends 36,101
//   J2 -> B0 B1, ends 36,052     J3 -> B2 B3, ends 36,203
// At 3,600 s the high-priority job H (4 hosts, priority 10, hard max_tier=block, 1 hour)
// arrives and fits nowhere.
//  - none: H waits for a whole block: J1's end frees block A at 36,101 s.
//  - priority-only: all are of priority 0, so the order of the running jobs decides
//    (soonest end first): J0, then J2. Four hosts are free, but two in each block, so H
//    still cannot run inside one block; the round was in vain and H waits for block A as
//    before, while J0 and J2 wait behind it with their work lost.
//  - topology: one block is cleared. Both cost two jobs and about two hours of work
//    (block B's started 1-2 s later and lost slightly less), so J2 and J3 stop and H
//    starts at once. Victims of equal priority never preempt each other.
// Checkpoints every 2 hours (the default): a victim stopped after an hour loses all of it.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "scheduler/sim/metrics.h"
#include "scheduler/sim/simulator.h"
#include "scheduler/sim/synthetic_trace.h"
#include "scheduler/sim/trace_native.h"
#include "tests/unit/scheduler/sim/tiny_fabric.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::sched::sim {
namespace {

constexpr double kHour = 3600;

absl::StatusOr<Trace> Parse(const std::string& lines) {
  return ParseNativeTrace(std::string(kNativeTraceHeader) + "\n" + lines, "inline");
}

// A job of `hosts` 8-GPU hosts without network traffic (so every slowdown is 1).
std::string Job(int id, double arrival, double duration, int hosts, const std::string& extra) {
  return absl::StrCat(id, " ", arrival, " ", duration, " tp=8,pp=1,dp=", hosts,
                      ",h=8,s=1000,b=1,layers=8,params=1e9,mb=1,tp_bytes=0,dp_bytes=0", extra,
                      "\n");
}

const std::string kPreemptionTrace = Job(0, 0, 36000, 2, "") + Job(1, 1, 36100, 2, "") +
                                     Job(2, 2, 36050, 2, "") + Job(3, 3, 36200, 2, "") +
                                     Job(4, kHour, kHour, 4, ",priority=10,max_tier=block");

class SimulatorPreemptionTest : public ::testing::Test {
 protected:
  SimulatorPreemptionTest() {
    absl::StatusOr<FabricPtr> fabric = GenerateClos(OneSpine("pre-2x4", 2, 4));
    EXPECT_TRUE(fabric.ok()) << fabric.status();
    fabric_ = *fabric;
  }

  SimResult Run(const std::string& lines, SimPreemption preemption,
                const std::string& policy = "first-fit") {
    absl::StatusOr<Trace> trace = Parse(lines);
    EXPECT_TRUE(trace.ok()) << trace.status();
    SimOptions options;
    options.preemption = preemption;
    absl::StatusOr<SimResult> r = Simulator(fabric_, options).Run(*trace, policy);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : SimResult{};
  }

  FabricPtr fabric_;
};

TEST_F(SimulatorPreemptionTest, WithoutPreemptionTheHighPriorityJobWaitsForAWholeBlock) {
  const SimResult r = Run(kPreemptionTrace, {.mode = PreemptionMode::kNone});

  EXPECT_DOUBLE_EQ(r.jobs[4].start_s, 36101);
  EXPECT_EQ(r.jobs[4].blocks, 1);
  EXPECT_EQ(Summarize(r).preemptions, 0);
}

TEST_F(SimulatorPreemptionTest, TopologyPreemptionClearsOneBlockAndStartsTheJobAtOnce) {
  const SimResult r = Run(kPreemptionTrace, {.mode = PreemptionMode::kTopology});

  EXPECT_DOUBLE_EQ(r.jobs[4].start_s, kHour);
  EXPECT_DOUBLE_EQ(r.jobs[4].end_s, 2 * kHour);
  EXPECT_EQ(r.jobs[4].blocks, 1);
  EXPECT_EQ(r.jobs[0].preemptions + r.jobs[1].preemptions, 0) << "block A keeps running";
  EXPECT_EQ(r.jobs[2].preemptions, 1);
  EXPECT_EQ(r.jobs[3].preemptions, 1);
  EXPECT_EQ(r.preemption_rounds, 1);
  EXPECT_EQ(r.wasted_preemption_rounds, 0);
  // Each victim lost the hour since it started (no checkpoint yet) and pays the restart.
  EXPECT_NEAR(r.jobs[2].preempted_lost_work_s, kHour - 2, 1e-6);
  EXPECT_NEAR(r.jobs[2].preempted_restart_work_s, 600, 1e-9);
  EXPECT_EQ(r.jobs[2].interruptions, 0) << "a preemption is not a fault";
  EXPECT_NEAR(r.jobs[2].end_s, 2 * kHour + 600 + 36050, 1e-6)
      << "restarted when H ended, from the start";
  const PolicyMetrics m = Summarize(r);
  EXPECT_EQ(m.high_priority_jobs, 1);
  EXPECT_DOUBLE_EQ(m.high_mean_jct_s, kHour);
  EXPECT_EQ(m.preemptions, 2);
  EXPECT_NEAR(m.preempted_gpu_hours, 16 * ((kHour - 2) + (kHour - 3) + 2 * 600) / kHour, 1e-6);
}

TEST_F(SimulatorPreemptionTest, PriorityOnlyPreemptionStopsTheLowestPrioritiesInVain) {
  const SimResult r = Run(kPreemptionTrace, {.mode = PreemptionMode::kPriorityOnly});

  EXPECT_EQ(r.jobs[0].preemptions, 1);
  EXPECT_EQ(r.jobs[2].preemptions, 1);
  EXPECT_EQ(r.jobs[1].preemptions + r.jobs[3].preemptions, 0);
  EXPECT_EQ(r.wasted_preemption_rounds, 1);
  EXPECT_DOUBLE_EQ(r.jobs[4].start_s, 36101) << "no earlier than without preemption";
  EXPECT_EQ(r.jobs[4].blocks, 1);
}

TEST_F(SimulatorPreemptionTest, NeverStopsAJobOfEqualOrHigherPriority) {
  const std::string equal = Job(0, 0, 10 * kHour, 4, ",priority=10") +
                            Job(1, 1, 10 * kHour, 4, ",priority=11") +
                            Job(2, kHour, kHour, 4, ",priority=10,max_tier=block");
  for (PreemptionMode mode : {PreemptionMode::kTopology, PreemptionMode::kPriorityOnly}) {
    const SimResult r = Run(equal, {.mode = mode});
    EXPECT_EQ(r.jobs[0].preemptions + r.jobs[1].preemptions, 0) << PreemptionModeName(mode);
    EXPECT_EQ(r.preemption_rounds, 0);
    EXPECT_DOUBLE_EQ(r.jobs[2].start_s, 10 * kHour);
  }
}

TEST_F(SimulatorPreemptionTest, TheQueueServesHigherPrioritiesFirstAndIsFifoWithinOne) {
  // The fabric is full until 1,000 s; then only one 8-host job fits at a time.
  const std::string lines = Job(0, 0, 1000, 8, "") + Job(1, 10, 100, 8, "") +
                            Job(2, 20, 100, 8, ",priority=5") + Job(3, 30, 100, 8, ",priority=5");
  const SimResult r = Run(lines, {.mode = PreemptionMode::kNone});

  EXPECT_DOUBLE_EQ(r.jobs[2].start_s, 1000);
  EXPECT_DOUBLE_EQ(r.jobs[3].start_s, 1100);
  EXPECT_DOUBLE_EQ(r.jobs[1].start_s, 1200);
}

TEST_F(SimulatorPreemptionTest, WithoutPrioritiesOrBlockJobsPreemptionAndLookAheadChangeNothing) {
  absl::StatusOr<Trace> trace = GenerateLargeJobMix(64, {.jobs = 200});
  ASSERT_TRUE(trace.ok()) << trace.status();
  absl::StatusOr<SimResult> plain = Simulator(fabric_, {}).Run(*trace, "topoplace");
  ASSERT_TRUE(plain.ok()) << plain.status();
  for (const SimPreemption preemption :
       {SimPreemption{.mode = PreemptionMode::kTopology},
        SimPreemption{.mode = PreemptionMode::kPriorityOnly, .look_ahead = true}}) {
    SimOptions options;
    options.preemption = preemption;
    absl::StatusOr<SimResult> other = Simulator(fabric_, options).Run(*trace, "topoplace");
    ASSERT_TRUE(other.ok()) << other.status();
    ASSERT_EQ(plain->jobs.size(), other->jobs.size());
    for (size_t j = 0; j < plain->jobs.size(); ++j) {
      EXPECT_DOUBLE_EQ(plain->jobs[j].start_s, other->jobs[j].start_s) << "job " << j;
      EXPECT_DOUBLE_EQ(plain->jobs[j].end_s, other->jobs[j].end_s) << "job " << j;
    }
    EXPECT_EQ(other->preemption_rounds, 0);
  }
}

// Look-ahead. A: J0 on A0 A1 until 100 s, J1 on A2 A3 until 999 s; B: J2 on B0-B2 until
// 500 s, J3 on B3 until 5,000 s. W (4 hosts, hard max_tier=block) arrives at 10 s; by GPU
// counts (EASY) it could start at 500 s with 8 GPUs to spare, so the 1-host S (arriving
// at 20 s, 5,000 s long) backfills onto A0 when J0 ends, and A is not whole again until
// S ends at 5,100 s (first-fit takes the first free hosts, so it finds a block only when
// A is whole). With look-ahead block A, whole free soonest (999 s
// against 5,000 s), is kept for W: S waits until J2 frees B0 at 500 s, and W starts in A
// at 999 s.
TEST_F(SimulatorPreemptionTest, LookAheadKeepsTheBlockWholeSoonestForAWaitingBlockJob) {
  const std::string lines = Job(0, 0, 100, 2, "") + Job(1, 0, 999, 2, "") + Job(2, 0, 500, 3, "") +
                            Job(3, 0, 5000, 1, "") + Job(4, 10, 1000, 4, ",max_tier=block") +
                            Job(5, 20, 5000, 1, "");
  const SimResult plain = Run(lines, {});
  const SimResult ahead = Run(lines, {.look_ahead = true});

  EXPECT_DOUBLE_EQ(plain.jobs[5].start_s, 100) << "S backfills into block A";
  EXPECT_DOUBLE_EQ(plain.jobs[4].start_s, 5100) << "so W waits for S";
  EXPECT_DOUBLE_EQ(ahead.jobs[5].start_s, 500) << "S takes B0 once J2 ends";
  EXPECT_DOUBLE_EQ(ahead.jobs[4].start_s, 999) << "W gets block A when J1 ends";
  EXPECT_TRUE(ahead.look_ahead);
}

}  // namespace
}  // namespace topoplace::sched::sim
