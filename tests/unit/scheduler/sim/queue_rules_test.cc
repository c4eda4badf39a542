// The queue's rules: priority then arrival, returning jobs in front of their class, and
// EASY's reservation for a blocked head read off the running jobs' ends, and the outlook the
// engine is told from the same ends.
#include "scheduler/sim/queue_rules.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <span>
#include <vector>

#include "topology/generate/reference_fabrics.h"

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

TEST(QueueRules, TheOutlookListsTheOtherWaitingJobsAndWhenEachHostIsExpectedFree) {
  absl::StatusOr<FabricPtr> fabric = GeneratePreset("gb200-nvl72");
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  const Fabric& f = **fabric;
  // Job 0 runs on GPUs 0-3 (host 0) until 50, job 1 on GPU 4 (host 1) until 20 and job 2
  // on GPU 5 (host 1 too) until 40; jobs 3-6 wait, 4 of them behind job 3 being tried.
  const std::vector<std::vector<GpuId>> gpus = {{0, 1, 2, 3}, {4}, {5}};
  const std::set<std::pair<double, size_t>> running = {{20, 1}, {40, 2}, {50, 0}};
  const std::list<size_t> queue = {3, 4, 5, 6};
  const std::vector<int> nodes = {0, 0, 0, 8, 2, 4, 6};
  QueueOutlook out;
  out.waiting_nodes = {99};  // refilled, not appended to
  FillOutlook(
      f, queue, 4, /*window=*/2, running, /*now=*/10, [&](size_t k) { return nodes[k]; },
      [&](size_t k) { return std::span<const GpuId>(gpus[k]); }, out);
  EXPECT_THAT(out.waiting_nodes, ElementsAre(8, 4)) << "the others, at most the window";
  ASSERT_EQ(out.host_free_in_s.size(), f.hosts().size());
  EXPECT_EQ(f.gpus()[4].host, 1);
  EXPECT_EQ(out.host_free_in_s[0], 40);
  EXPECT_EQ(out.host_free_in_s[1], 30) << "wholly free when its last job ends";
  EXPECT_EQ(out.host_free_in_s[2], 0);
}

}  // namespace
}  // namespace topoplace::sched::sim
