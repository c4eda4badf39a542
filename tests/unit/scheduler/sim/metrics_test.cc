// Metrics: percentiles, CDF points, utilisation and fragmentation arithmetic.
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

}  // namespace
}  // namespace topoplace::sched::sim
