#include "scheduler/ledger/live_allocations.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

namespace topoplace::ledger {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1'000'000);

Allocation Reserved(absl::Time expires) {
  Allocation a;
  a.state = AllocationState::kReserved;
  a.expires_at = expires;
  return a;
}

Allocation Committed(const std::string& external_id) {
  Allocation a;
  a.state = AllocationState::kCommitted;
  a.external_id = external_id;
  a.expires_at = absl::InfiniteFuture();
  return a;
}

TEST(LiveAllocations, AddReplaceRemoveKeepEveryIndexInStep) {
  LiveAllocations live(8);
  live.Add(1, Reserved(kT0 + absl::Seconds(10)), {0, 1});
  live.Add(2, Reserved(kT0 + absl::Seconds(5)), {2});
  EXPECT_EQ(live.Holder(1), 1);
  EXPECT_EQ(live.Holder(2), 2);
  EXPECT_EQ(live.Holder(3), 0);
  EXPECT_EQ(live.held_gpus(), 3);
  EXPECT_EQ(live.EarliestExpiredAt(kT0), std::nullopt);
  EXPECT_EQ(live.EarliestExpiredAt(kT0 + absl::Seconds(5)), 2);  // at its expiry, inclusive

  // A commit leaves the expiry index and enters the external-id one.
  live.Replace(2, Committed("slurm:7"));
  EXPECT_EQ(live.CommittedTo("slurm:7"), 2);
  EXPECT_EQ(live.EarliestExpiredAt(kT0 + absl::Seconds(5)), std::nullopt);
  EXPECT_EQ(live.EarliestExpiredAt(kT0 + absl::Seconds(10)), 1);
  // A renewal moves the expiry.
  live.Replace(1, Reserved(kT0 + absl::Seconds(60)));
  EXPECT_EQ(live.EarliestExpiredAt(kT0 + absl::Seconds(59)), std::nullopt);

  const Allocation removed = live.Remove(2);
  EXPECT_EQ(removed.external_id, "slurm:7");
  EXPECT_EQ(live.CommittedTo("slurm:7"), std::nullopt);
  EXPECT_EQ(live.Holder(2), 0);
  EXPECT_EQ(live.held_gpus(), 2);
  EXPECT_EQ(live.Find(2), nullptr);
  live.Remove(1);
  EXPECT_EQ(live.EarliestExpiredAt(absl::InfiniteFuture()), std::nullopt);
  EXPECT_EQ(live.held_gpus(), 0);
  EXPECT_EQ(live.size(), 0u);
}

// Random changes against a plain model: after each, every index answers as the model does.
TEST(LiveAllocations, RandomChangesAgreeWithAPlainModel) {
  constexpr int kGpus = 64;
  std::mt19937 rng(7);
  LiveAllocations live(kGpus);
  std::map<int64_t, std::pair<Allocation, std::set<GpuId>>> model;
  int64_t next = 1;
  for (int step = 0; step < 2000; ++step) {
    const int op = static_cast<int>(rng() % 3);
    if (op == 0 || model.empty()) {  // add on free GPUs
      std::vector<GpuId> gpus;
      for (GpuId g = 0; g < kGpus && gpus.size() < 1 + rng() % 4; ++g) {
        if (live.Holder(g) == 0 && rng() % 3 == 0) gpus.push_back(g);
      }
      if (gpus.empty()) continue;
      Allocation a = Reserved(kT0 + absl::Seconds(rng() % 50));
      model[next] = {a, std::set<GpuId>(gpus.begin(), gpus.end())};
      live.Add(next++, a, gpus);
    } else {
      auto it = std::next(model.begin(), static_cast<long>(rng() % model.size()));
      if (op == 1) {
        Allocation a = rng() % 2 ? Committed("job-" + std::to_string(it->first))
                                 : Reserved(kT0 + absl::Seconds(rng() % 50));
        it->second.first = a;
        live.Replace(it->first, a);
      } else {
        live.Remove(it->first);
        model.erase(it);
      }
    }
    int64_t held = 0;
    std::optional<std::pair<absl::Time, int64_t>> earliest;
    for (const auto& [n, entry] : model) {
      held += static_cast<int64_t>(entry.second.size());
      for (GpuId g : entry.second) ASSERT_EQ(live.Holder(g), n);
      const Allocation& a = entry.first;
      if (a.state == AllocationState::kCommitted) {
        ASSERT_EQ(live.CommittedTo(a.external_id), n);
      }
      if (a.state == AllocationState::kReserved && (!earliest || a.expires_at < earliest->first)) {
        earliest = {a.expires_at, n};
      }
    }
    ASSERT_EQ(live.held_gpus(), held);
    ASSERT_EQ(live.size(), model.size());
    const std::optional<int64_t> due =
        live.EarliestExpiredAt(absl::InfiniteFuture() - absl::Hours(1));
    ASSERT_EQ(due.has_value(), earliest.has_value());
    if (earliest) {
      ASSERT_EQ(live.Find(*due)->expires_at, earliest->first);
    }
  }
}

}  // namespace
}  // namespace topoplace::ledger
