// GreedyBestFit (scheduler/framework/domain_select.h) against a plain model of its rule:
// largest capacity first, and for the last piece the smallest domain that still covers the
// remainder, ties to the lower index.
#include "scheduler/framework/domain_select.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <random>
#include <vector>

namespace topoplace::sched {
namespace {

// The rule written the obvious way: a stable sort by capacity, then a scan.
Takes PlainGreedyBestFit(const std::vector<int>& capacity, int need) {
  std::vector<int32_t> order(capacity.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return capacity[a] > capacity[b]; });
  Takes takes;
  int remaining = need;
  for (int32_t d : order) {
    if (remaining <= 0 || capacity[d] <= 0) break;
    if (capacity[d] < remaining) {
      takes.push_back({d, capacity[d]});
      remaining -= capacity[d];
      continue;
    }
    // The smallest capacity that covers the rest, among the domains not taken yet.
    int32_t best = -1;
    for (int32_t e : order) {
      const bool taken =
          std::any_of(takes.begin(), takes.end(), [e](const Take& t) { return t.index == e; });
      if (taken || capacity[e] < remaining) continue;
      if (best < 0 || capacity[e] < capacity[best] || (capacity[e] == capacity[best] && e < best)) {
        best = e;
      }
    }
    takes.push_back({best, remaining});
    remaining = 0;
  }
  if (remaining > 0) return {};
  return takes;
}

bool SameTakes(const Takes& a, const Takes& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Take& x, const Take& y) {
    return x.index == y.index && x.amount == y.amount;
  });
}

// The name a placement's description gives each level (the cluster's id is not shown).
TEST(DomainName, NamesTheBlockThePodOrTheCluster) {
  EXPECT_EQ(DomainName({DomainLevel::kBlock, 3, 0}), "block 3");
  EXPECT_EQ(DomainName({DomainLevel::kPod, 1, 0}), "pod 1");
  EXPECT_EQ(DomainName({DomainLevel::kCluster, 0, 0}), "the cluster");
}

TEST(GreedyBestFit, TakesTheLargestThenTheSmallestThatCoversTheRest) {
  const std::vector<int> cap = {4, 9, 6, 6, 2};
  // 9 first; 3 remain: the smallest covering it is 4 (index 0), not 6.
  const Takes takes = GreedyBestFit(cap, 12);
  ASSERT_EQ(takes.size(), 2u);
  EXPECT_EQ(takes[0].index, 1);
  EXPECT_EQ(takes[1].index, 0);
  EXPECT_EQ(takes[1].amount, 3);
}

TEST(GreedyBestFit, EqualCapacitiesGoToTheLowerIndex) {
  const std::vector<int> cap = {0, 5, 3, 5, 3};
  const Takes takes = GreedyBestFit(cap, 7);
  ASSERT_EQ(takes.size(), 2u);
  EXPECT_EQ(takes[0].index, 1);
  EXPECT_EQ(takes[1].index, 2) << "2 remain: of the two 3s, the lower index";
}

TEST(GreedyBestFit, ShortTotalsAndEmptyDomainsGiveNothing) {
  EXPECT_TRUE(GreedyBestFit(std::vector<int>{3, 0, -1, 2}, 6).empty());
  EXPECT_TRUE(GreedyBestFit(std::vector<int>{}, 1).empty());
}

TEST(GreedyBestFit, AgreesWithThePlainRuleOnRandomCapacities) {
  std::mt19937 random(11);
  for (int round = 0; round < 5000; ++round) {
    const int domains = std::uniform_int_distribution<int>(0, 40)(random);
    // Capacities of a few values (many ties), of blocks' free hosts, and of pods' (above
    // 2 x domains + 64: GreedyBestFit sorts those without counting). Needs up to the
    // total: up to eight takes are found by selection, more by the sorted walk.
    const int top =
        std::array<int, 4>{4, 40, 40, 1000}[std::uniform_int_distribution<int>(0, 3)(random)];
    std::vector<int> cap(domains);
    int total = 0;
    for (int& c : cap) {
      c = std::uniform_int_distribution<int>(-1, top)(random);
      total += std::max(c, 0);
    }
    const int need = std::uniform_int_distribution<int>(1, total + 2)(random);
    ASSERT_TRUE(SameTakes(GreedyBestFit(cap, need), PlainGreedyBestFit(cap, need)))
        << "round " << round << ", need " << need;
  }
}

}  // namespace
}  // namespace topoplace::sched
