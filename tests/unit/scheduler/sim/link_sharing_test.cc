// Calibration of the shared-link model on hand-built cases with exact answers, and the
// max-min property on random ones.
#include "scheduler/sim/link_sharing.h"

#include <cmath>
#include <map>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace topoplace::sched::sim {
namespace {

TEST(LinkSharingTest, TwoJobsSharingOneUplinkGetHalfEach) {
  // Each job alone fills the uplink (resource 0); its NIC cables (1, 2) are faster.
  LinkSharing sharing({100, 400, 400});
  sharing.Set(1, {{0, 100}, {1, 100}});
  sharing.Set(2, {{0, 100}, {2, 100}});
  auto f = sharing.Fractions();
  EXPECT_DOUBLE_EQ(f[1], 0.5);
  EXPECT_DOUBLE_EQ(f[2], 0.5);
  EXPECT_DOUBLE_EQ(sharing.AloneSeconds(1), 1.0);  // comm time doubles to 2 s
  sharing.Remove(2);
  EXPECT_DOUBLE_EQ(sharing.Fractions()[1], 1.0);
}

// The textbook case: A crosses links 1 and 2, B only link 1, C only link 2; link 1 carries
// 1 byte/s, link 2 carries 2. Max-min in bytes: A = B = 0.5 (link 1 full), C = 1.5 (the
// rest of link 2). Each moves 1 byte per iteration, so alone A and B run 1 iteration/s and
// C 2: the fractions are 0.5, 0.5 and 0.75.
TEST(LinkSharingTest, ThreeFlowsOnTwoLinksGetTheTextbookMaxMinRates) {
  LinkSharing sharing({1, 2});
  sharing.Set('A', {{0, 1}, {1, 1}});
  sharing.Set('B', {{0, 1}});
  sharing.Set('C', {{1, 1}});
  auto f = sharing.Fractions();
  EXPECT_DOUBLE_EQ(f['A'], 0.5);
  EXPECT_DOUBLE_EQ(f['B'], 0.5);
  EXPECT_DOUBLE_EQ(f['C'], 0.75);
}

TEST(LinkSharingTest, NobodyRunsFasterThanAloneAndJobsWithoutTrafficAreUntouched) {
  LinkSharing sharing({1000});
  sharing.Set(1, {{0, 10}});
  sharing.Set(2, {{0, 20}});
  sharing.Set(3, {});  // all its traffic stays on NVLink
  auto f = sharing.Fractions();
  // Alone each uses the whole link for its bytes; together they need 2x the link.
  EXPECT_DOUBLE_EQ(f[1], 0.5);
  EXPECT_DOUBLE_EQ(f[2], 0.5);
  EXPECT_DOUBLE_EQ(f[3], 1.0);
  EXPECT_EQ(sharing.AloneSeconds(3), 0);
}

// On random jobs over random links: no link carries more than its capacity, and every job
// below full speed has a full link on which no other job has a larger fraction (the
// bottleneck condition that defines max-min fairness).
TEST(LinkSharingTest, RandomInstancesAreFeasibleAndMaxMinFair) {
  std::mt19937 random(7);
  for (int instance = 0; instance < 200; ++instance) {
    const int links = 1 + static_cast<int>(random() % 12);
    std::vector<double> capacity(links);
    for (double& c : capacity) c = 1 + random() % 100;
    LinkSharing sharing(capacity);
    const int jobs = 1 + static_cast<int>(random() % 20);
    std::vector<std::vector<ResourceBytes>> demand(jobs);
    for (int j = 0; j < jobs; ++j) {
      for (int l = 0; l < links; ++l) {
        if (random() % 3 == 0) demand[j].push_back({l, 1.0 + random() % 50});
      }
      sharing.Set(j, demand[j]);
    }
    auto f = sharing.Fractions();
    std::vector<double> load(links, 0);
    for (int j = 0; j < jobs; ++j) {
      const double alone = sharing.AloneSeconds(j);
      for (const ResourceBytes& d : demand[j]) load[d.resource] += f[j] * d.bytes / alone;
    }
    for (int l = 0; l < links; ++l) ASSERT_LE(load[l], capacity[l] * (1 + 1e-9)) << instance;
    for (int j = 0; j < jobs; ++j) {
      ASSERT_GT(f[j], 0);
      ASSERT_LE(f[j], 1);
      if (f[j] >= 1 - 1e-9) continue;
      bool bottleneck = false;
      for (const ResourceBytes& d : demand[j]) {
        if (load[d.resource] < capacity[d.resource] * (1 - 1e-6)) continue;
        bool largest = true;
        for (int k = 0; k < jobs; ++k) {
          for (const ResourceBytes& e : demand[k]) {
            if (e.resource == d.resource && f[k] > f[j] + 1e-9) largest = false;
          }
        }
        bottleneck = bottleneck || largest;
      }
      ASSERT_TRUE(bottleneck) << "instance " << instance << " job " << j;
    }
  }
}

// Recomputing only the group a change touches gives the same shares as recomputing all:
// on random instances, after each removal, FractionsAround(the removed job's neighbours)
// equals Fractions() on every job it returns, and it returns every job whose share moved.
TEST(LinkSharingTest, FractionsAroundAChangeMatchTheWholeRecomputation) {
  std::mt19937 random(11);
  for (int instance = 0; instance < 100; ++instance) {
    const int links = 2 + static_cast<int>(random() % 30);
    std::vector<double> capacity(links);
    for (double& c : capacity) c = 1 + random() % 100;
    LinkSharing sharing(capacity);
    const int jobs = 2 + static_cast<int>(random() % 20);
    for (int j = 0; j < jobs; ++j) {
      std::vector<ResourceBytes> demand;
      for (int l = 0; l < links; ++l) {
        if (random() % 8 == 0) demand.push_back({l, 1.0 + random() % 50});
      }
      sharing.Set(j, demand);
    }
    auto before = sharing.Fractions();
    for (int j = 0; j < jobs; j += 2) {
      const std::vector<LinkSharing::JobKey> near = sharing.Neighbours(j);
      sharing.Remove(j);
      const auto all = sharing.Fractions();
      const auto around = sharing.FractionsAround(near);
      for (const auto& [job, f] : around) ASSERT_DOUBLE_EQ(f, all.at(job)) << instance;
      for (const auto& [job, f] : all) {
        if (std::abs(f - before.at(job)) > 1e-12) {
          ASSERT_TRUE(around.contains(job)) << "instance " << instance << " job " << job;
        }
      }
      EXPECT_FALSE(around.contains(j));
      before = all;
    }
  }
}

// Progressive filling as its definition reads, every resource at every level (the code
// before the heap and the quiet entries): what LinkSharing must equal bit for bit. Speeds
// alone are measured on `nominal`, the filling runs on `capacity`.
absl::flat_hash_map<int64_t, double> PlainFilling(
    const std::vector<double>& nominal, const std::vector<double>& capacity,
    const std::map<int64_t, std::vector<ResourceBytes>>& demand) {
  absl::flat_hash_map<int64_t, double> fraction;
  struct Job {
    int64_t key;
    const std::vector<ResourceBytes>* demand;
    double alone_rate;
  };
  std::vector<Job> rising;  // in key order (std::map)
  for (const auto& [key, d] : demand) {
    double slowest = 0;
    for (const ResourceBytes& e : d) slowest = std::max(slowest, e.bytes / nominal[e.resource]);
    if (slowest == 0) {
      fraction[key] = 1;
    } else {
      rising.push_back({key, &d, 1 / slowest});
    }
  }
  std::vector<double> frozen_load(capacity.size(), 0), rising_rate(capacity.size(), 0);
  for (const Job& j : rising) {
    for (const ResourceBytes& e : *j.demand) rising_rate[e.resource] += j.alone_rate * e.bytes;
  }
  constexpr double kFull = 1 - 1e-9;
  while (!rising.empty()) {
    double level = 1;
    for (const Job& j : rising) {
      for (const ResourceBytes& e : *j.demand) {
        level = std::min(level, std::max(0.0, capacity[e.resource] - frozen_load[e.resource]) /
                                    rising_rate[e.resource]);
      }
    }
    std::vector<Job> still, frozen;
    for (const Job& j : rising) {
      bool full = level >= 1;
      for (const ResourceBytes& e : *j.demand) {
        full = full || frozen_load[e.resource] + level * rising_rate[e.resource] >=
                           kFull * capacity[e.resource];
      }
      (full ? frozen : still).push_back(j);
    }
    for (const Job& j : frozen) {
      fraction[j.key] = level;
      for (const ResourceBytes& e : *j.demand) {
        const double rate = j.alone_rate * e.bytes;
        rising_rate[e.resource] -= rate;
        frozen_load[e.resource] += level * rate;
      }
    }
    rising = std::move(still);
  }
  return fraction;
}

// Random jobs come and go on links of a few sizes (so that levels tie), with links they
// share, links nobody fills and now and then a link named twice; some links lose capacity.
// After every change Fractions() equals the plain filling to the last bit, and so do the
// fractions around the change the plain filling of their group (the whole filling may
// freeze a job a few ulps off, where another group's level fell within kFull of its own).
TEST(LinkSharingTest, TheFillingEqualsThePlainOneBitForBitAsJobsComeAndGo) {
  std::mt19937 random(23);
  int shared_levels = 0;  // fractions below 1: the filling did more than stop everyone at 1
  for (int instance = 0; instance < 60; ++instance) {
    const int links = 4 + static_cast<int>(random() % 40);
    std::vector<double> nominal(links);
    for (double& c : nominal) c = 50.0 * static_cast<double>(1 + random() % 4);
    std::vector<double> capacity = nominal;
    LinkSharing sharing(nominal);
    std::map<int64_t, std::vector<ResourceBytes>> demand;
    for (int step = 0; step < 60; ++step) {
      std::vector<int64_t> changed;
      if (!demand.empty() && random() % 3 == 0) {
        auto it = std::next(demand.begin(), static_cast<long>(random() % demand.size()));
        changed = sharing.Neighbours(it->first);
        sharing.Remove(it->first);
        demand.erase(it);
      } else if (random() % 7 == 0) {
        const int32_t link = static_cast<int32_t>(random() % links);
        const double share = 0.25 * static_cast<double>(1 + random() % 4);
        sharing.SetShare(link, share);
        capacity[link] = nominal[link] * share;
        changed = sharing.Users(link);
      } else {
        const int64_t key = 1000 + step;
        std::vector<ResourceBytes> d;
        const int n = 1 + static_cast<int>(random() % 8);
        for (int i = 0; i < n; ++i) {
          d.push_back({static_cast<int32_t>(random() % links),
                       1.0 + 10.0 * static_cast<double>(random() % 3)});
        }
        if (random() % 5 == 0) d.push_back(d.front());  // a link named twice
        sharing.Set(key, d);
        demand[key] = d;
        changed = {key};
      }
      const auto plain = PlainFilling(nominal, capacity, demand);
      const auto all = sharing.Fractions();
      ASSERT_EQ(all.size(), plain.size());
      for (const auto& [job, f] : plain) {
        ASSERT_EQ(all.at(job), f) << "instance " << instance << " step " << step;
        if (f < 1) ++shared_levels;
      }
      const auto around = sharing.FractionsAround(changed);
      std::map<int64_t, std::vector<ResourceBytes>> group;
      for (const auto& [job, f] : around) group[job] = demand.at(job);
      const auto plain_group = PlainFilling(nominal, capacity, group);
      for (const auto& [job, f] : around) {
        ASSERT_EQ(f, plain_group.at(job)) << "instance " << instance << " step " << step;
        ASSERT_NEAR(f, plain.at(job), 1e-12) << "instance " << instance << " step " << step;
      }
    }
  }
  EXPECT_GT(shared_levels, 1000);
}

}  // namespace
}  // namespace topoplace::sched::sim
