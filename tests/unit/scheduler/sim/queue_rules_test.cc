// The queue's rules: priority then arrival, returning jobs in front of their class, and
// EASY's reservation for a blocked head read off the running jobs' ends.
#include "scheduler/sim/queue_rules.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace topoplace::sched::sim {
namespace {

using ::testing::ElementsAre;

TEST(QueueRules, ArrivalsWaitBehindTheirPriorityAndReturningJobsGoInFrontOfIt) {
  const std::vector<int64_t> priority = {0, 0, 10, 0, 10, 0, 10};
  const auto of = [&](size_t j) { return priority[j]; };
  std::list<size_t> queue;
  for (size_t j : {0, 1, 2, 3, 4}) EnqueueByPriority(queue, j, /*returning=*/false, of);
  EXPECT_THAT(queue, ElementsAre(2, 4, 0, 1, 3)) << "10s first, then FIFO";
  EnqueueByPriority(queue, 5, /*returning=*/true, of);
  EXPECT_THAT(queue, ElementsAre(2, 4, 5, 0, 1, 3)) << "a returning 0 heads the 0s";
  EnqueueByPriority(queue, 6, /*returning=*/true, of);
  EXPECT_THAT(queue, ElementsAre(6, 2, 4, 5, 0, 1, 3));
}

TEST(QueueRules, TheHeadsShadowIsWhenEnoughGpusAreFreeAndExtraIsWhatIsLeftThen) {
  // Free 4; running jobs end at 10 (8 GPUs), 20 (16), 30 (32).
  const std::vector<int64_t> gpus = {8, 16, 32};
  const std::set<std::pair<double, size_t>> running = {{10, 0}, {20, 1}, {30, 2}};
  const auto of = [&](size_t j) { return gpus[j]; };
  const EasyReservation r = ReserveForHead(4, 20, running, of);
  EXPECT_EQ(r.shadow_s, 20) << "4 + 8 + 16 = 28 >= 20 at t=20";
  EXPECT_EQ(r.extra_gpus, 8);
  const EasyReservation fits = ReserveForHead(24, 20, running, of);
  EXPECT_EQ(fits.shadow_s, 10) << "fits by count but was not placed: the next end";
  EXPECT_EQ(fits.extra_gpus, 0);
  const EasyReservation never = ReserveForHead(4, 100, running, of);
  EXPECT_EQ(never.shadow_s, std::numeric_limits<double>::infinity());
  EXPECT_EQ(never.extra_gpus, 0);
}

}  // namespace
}  // namespace topoplace::sched::sim
