// Metrics: percentiles, CDF points, utilisation and fragmentation arithmetic, the
// GPU-hour weighting, throughput and the size classes.
#include "scheduler/sim/metrics.h"

#include "gtest/gtest.h"

namespace topoplace::sched::sim {
namespace {

TEST(Metrics, PercentileUsesNearestRank) {
  // 20 values 1..20: p95 -> rank ceil(0.95 * 20) = 19 -> 19; p50 -> rank 10 -> 10.
  std::vector<double> v;
  for (int i = 20; i >= 1; --i) v.push_back(i);
  EXPECT_DOUBLE_EQ(Percentile(v, 95), 19);
  EXPECT_DOUBLE_EQ(Percentile(v, 50), 10);
  EXPECT_DOUBLE_EQ(Percentile(v, 100), 20);
  EXPECT_DOUBLE_EQ(Percentile({}, 95), 0);
}

TEST(Metrics, CdfEndsAtTheMaximumWithFractionOne) {
  const auto cdf = EmpiricalCdf({3, 1, 2, 4}, 2);
  // 2 points of 4 values: ranks ceil(1*4/2) = 2 and 4.
  ASSERT_EQ(cdf.size(), 2u);
  EXPECT_DOUBLE_EQ(cdf[0].first, 2);
  EXPECT_DOUBLE_EQ(cdf[0].second, 0.5);
  EXPECT_DOUBLE_EQ(cdf[1].first, 4);
  EXPECT_DOUBLE_EQ(cdf[1].second, 1.0);
}

TEST(Metrics, UtilisationAndFragmentationAreTimeWeighted) {
  SimResult r;
  r.policy = "p";
  r.total_gpus = 10;
  // Busy 10 GPUs over [0, 50), 5 over [50, 100): 750 of 1000 GPU-seconds = 75%.
  r.busy_steps = {{0, 10}, {50, 5}, {100, 0}};
  JobRecord a;
  a.gpus = 10;
  a.start_s = 0;
  a.end_s = 100;
  JobRecord b;
  b.id = 1;
  b.gpus = 5;
  b.start_s = 0;
  b.end_s = 50;
  r.jobs = {a, b};
  r.fragmented_gpu_seconds = 200;  // e.g. 4 GPUs stranded for 50 s
  const PolicyMetrics m = Summarize(r);
  EXPECT_DOUBLE_EQ(m.makespan_s, 100);
  EXPECT_DOUBLE_EQ(m.utilisation, 0.75);
  EXPECT_DOUBLE_EQ(m.mean_fragmented_gpus, 2);  // 200 GPU-s / 100 s
  EXPECT_DOUBLE_EQ(m.mean_jct_s, 75);           // (100 + 50) / 2
  const auto series = UtilisationSeries(r, 2);
  ASSERT_EQ(series.size(), 2u);
  EXPECT_DOUBLE_EQ(series[0].second, 1.0);
  EXPECT_DOUBLE_EQ(series[1].second, 0.5);
}

// Three completed jobs and a rejected one, by hand:
//   1 GPU,    100 s of work, slowdown 1, queued 10 s, JCT 110 s
//   64 GPUs,  100 s,         slowdown 2, queued 0,    JCT 200 s
//   2,048,    100 s,         slowdown 1.5, queued 50, JCT 200 s
TEST(Metrics, SlowdownWeighsEachJobsGpuHoursAndJctIsSplitBySize) {
  SimResult r;
  r.total_gpus = 4096;
  const auto job = [](int64_t id, int64_t gpus, double slowdown, double arrival, double start) {
    JobRecord j;
    j.id = id;
    j.gpus = gpus;
    j.duration_s = 100;
    j.slowdown = slowdown;
    j.arrival_s = arrival;
    j.start_s = start;
    j.end_s = start + 100 * slowdown;
    return j;
  };
  JobRecord rejected = job(3, 8, 1, 0, -1);
  rejected.outcome = JobOutcome::kRejected;
  r.jobs = {job(0, 1, 1, 0, 10), job(1, 64, 2, 0, 0), job(2, 2048, 1.5, 0, 50), rejected};
  const PolicyMetrics m = Summarize(r);
  EXPECT_DOUBLE_EQ(m.mean_slowdown, 1.5);
  // (1 x 1 + 64 x 2 + 2048 x 1.5) / (1 + 64 + 2048): the large job counts most.
  EXPECT_DOUBLE_EQ(m.gpu_hour_weighted_slowdown, (1 + 128 + 3072) / 2113.0);
  EXPECT_DOUBLE_EQ(m.p99_jct_s, 200);
  // 2,113 GPUs x 100 s of work over a makespan of 200 s, per day.
  EXPECT_DOUBLE_EQ(m.gpu_hours_per_day, 2113 * 100 / 3600.0 / (200 / 86400.0));
  ASSERT_EQ(m.jct_by_size.size(), 5u);
  EXPECT_EQ(m.jct_by_size[0].max_gpus, 8);
  EXPECT_EQ(m.jct_by_size[0].jobs, 1) << "the rejected 8-GPU job is not counted";
  EXPECT_DOUBLE_EQ(m.jct_by_size[0].mean_jct_s, 110);
  EXPECT_DOUBLE_EQ(m.jct_by_size[0].mean_queue_s, 10);
  EXPECT_EQ(m.jct_by_size[1].max_gpus, 64);
  EXPECT_EQ(m.jct_by_size[1].jobs, 1) << "64 GPUs is in the class of up to 64";
  EXPECT_EQ(m.jct_by_size[2].jobs, 0);
  EXPECT_DOUBLE_EQ(m.jct_by_size[2].mean_jct_s, 0);
  EXPECT_EQ(m.jct_by_size[3].jobs, 0);
  EXPECT_EQ(m.jct_by_size[4].max_gpus, 0) << "no bound";
  EXPECT_EQ(m.jct_by_size[4].jobs, 1);
  EXPECT_DOUBLE_EQ(m.jct_by_size[4].p95_jct_s, 200);
  EXPECT_DOUBLE_EQ(m.jct_by_size[4].mean_queue_s, 50);
}

}  // namespace
}  // namespace topoplace::sched::sim
