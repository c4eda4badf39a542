// A restarted job's work: what its run did past the restart counts, and a checkpoint
// saves whole intervals of it.
#include "scheduler/sim/job_progress.h"

#include <gtest/gtest.h>

namespace topoplace::sched::sim {
namespace {

// 300 s checkpointed; this run reloads for 60 s, then has 700 s to do (work 760).
constexpr JobProgress kRun = {.checkpointed = 300, .restart_s = 60, .work = 760, .start_s = 0};

TEST(JobProgress, UsefulWorkCountsOnlyThePartOfTheRunPastItsRestart) {
  EXPECT_EQ(UsefulWork(kRun, 30), 300) << "still reloading";
  EXPECT_EQ(UsefulWork(kRun, 260), 500);
  EXPECT_EQ(UsefulWork(kRun, 5000), 300 + 760) << "at most the run's work";
}

TEST(JobProgress, ACheckpointSavesWholeIntervalsAndNeverLessThanBefore) {
  EXPECT_EQ(SavedWork(kRun, 500, 200), 400);
  EXPECT_EQ(SavedWork(kRun, 350, 200), 300) << "what was saved before stays";
  EXPECT_EQ(SavedWork(kRun, 512, 0), 512) << "interval 0: every instant is saved";
}

}  // namespace
}  // namespace topoplace::sched::sim
