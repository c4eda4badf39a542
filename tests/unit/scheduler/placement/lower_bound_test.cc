#include "scheduler/placement/lower_bound.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/job/job_spec.h"

namespace topoplace::sched {
namespace {

// The job's rank graph as a dense symmetric matrix (bytes both directions per pair).
std::vector<std::vector<double>> RankGraph(const RankLayout& layout, const TrafficModel& t) {
  const int n = layout.world_size();
  std::vector<std::vector<double>> w(n, std::vector<double>(n, 0));
  const auto add = [&](int a, int b, double bytes) {
    w[a][b] += bytes;
    w[b][a] += bytes;
  };
  for (Dim d : kAllDims) {
    const int size = layout.size(d);
    if (size <= 1) continue;
    for (int r = 0; r < n; ++r) {
      const int c = layout.Coord(r, d);
      switch (PatternOf(d)) {
        case Pattern::kRing:
          add(r, layout.Neighbor(r, d), t.pair(d));
          break;
        case Pattern::kChain:
          if (c + 1 < size) add(r, layout.Neighbor(r, d), 2 * t.pair(d));
          break;
        case Pattern::kAllToAll:
          for (int o = c + 1; o < size; ++o) add(r, layout.WithCoord(r, d, o), 2 * t.pair(d));
          break;
      }
    }
  }
  return w;
}

// Stoer-Wagner global minimum cut, O(n^3): the reference the closed form must match.
double BruteForceMinCut(std::vector<std::vector<double>> w) {
  const int n = static_cast<int>(w.size());
  std::vector<int> alive(n);
  for (int i = 0; i < n; ++i) alive[i] = i;
  double best = std::numeric_limits<double>::infinity();
  while (alive.size() > 1) {
    std::vector<double> conn(n, 0);
    std::vector<bool> added(n, false);
    int prev = -1, last = -1;
    for (size_t step = 0; step < alive.size(); ++step) {
      int pick = -1;
      for (int v : alive) {
        if (!added[v] && (pick < 0 || conn[v] > conn[pick])) pick = v;
      }
      added[pick] = true;
      prev = last;
      last = pick;
      for (int v : alive) conn[v] += w[pick][v];
    }
    double cut = 0;
    for (int v : alive) {
      if (v != last) cut += w[last][v];
    }
    best = std::min(best, cut);
    for (int v : alive) {
      w[prev][v] += w[last][v];
      w[v][prev] = w[prev][v];
    }
    w[prev][prev] = 0;
    alive.erase(std::find(alive.begin(), alive.end(), last));
  }
  return best;
}

class EdgeConnectivity : public ::testing::TestWithParam<const char*> {};

TEST_P(EdgeConnectivity, ClosedFormEqualsBruteForceMinCut) {
  absl::StatusOr<JobSpec> job = ParseJobSpec(GetParam());
  ASSERT_TRUE(job.ok()) << job.status();
  const RankLayout layout(*job);
  const TrafficModel traffic = BuildTrafficModel(*job);
  const double closed = RankGraphEdgeConnectivity(layout, traffic);
  const double brute = BruteForceMinCut(RankGraph(layout, traffic));
  EXPECT_NEAR(closed, brute, 1e-9 * std::max(1.0, brute)) << GetParam();
}

// Small jobs with explicit bytes so every factor's weight differs; gpus_per_node=1 and
// tp_across_nodes=1 keep the spec valid for any tp.
INSTANTIATE_TEST_SUITE_P(
    SmallJobs, EdgeConnectivity,
    ::testing::Values(
        "tp=1,pp=2,dp=1,gpus_per_node=1,pp_bytes=1e6",
        "tp=1,pp=1,dp=5,gpus_per_node=1,dp_bytes=1e6",
        "tp=1,pp=3,dp=4,gpus_per_node=1,pp_bytes=5e5,dp_bytes=1e6",  // stage cut is cheaper
        "tp=1,pp=4,dp=3,gpus_per_node=1,pp_bytes=1e9,dp_bytes=1e6",  // ring cut is cheaper
        "tp=2,pp=2,dp=2,gpus_per_node=1,tp_across_nodes=1,tp_bytes=1e9,pp_bytes=1e6,dp_bytes=1e6",
        "tp=2,pp=3,dp=2,ep=3,gpus_per_node=1,tp_across_nodes=1,"
        "tp_bytes=1e8,pp_bytes=1e7,dp_bytes=1e6,ep_bytes=3e6",
        "tp=1,pp=2,dp=2,cp=3,gpus_per_node=1,s=3,h=8,layers=4,params=1e6,cp_bytes=1e5",
        "tp=3,pp=1,dp=3,gpus_per_node=1,tp_across_nodes=1,h=24,s=4,layers=2,params=1e6,"
        "tp_bytes=1e3,dp_bytes=1e9"));  // isolating one rank

TEST(LowerBound, ChainConnectivityIsOneStageCut) {
  // A 3-stage chain: the cheapest cut is one stage boundary.
  absl::StatusOr<JobSpec> job = ParseJobSpec("tp=1,pp=3,dp=1,gpus_per_node=1,pp_bytes=4e6");
  ASSERT_TRUE(job.ok());
  const RankLayout layout(*job);
  const TrafficModel traffic = BuildTrafficModel(*job);
  // pair = per_rank * p / (2 (p-1)) = 4e6 * 3 / 4 = 3e6 per direction; lambda = 2 * 3e6.
  EXPECT_DOUBLE_EQ(RankGraphEdgeConnectivity(layout, traffic), 6e6);
}

}  // namespace
}  // namespace topoplace::sched
