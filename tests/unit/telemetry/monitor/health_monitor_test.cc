#include "telemetry/monitor/health_monitor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "tests/testing/fabrics.h"

namespace topoplace::telemetry {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'000);

// The monitor's history in memory, as the daemon's SQLite store keeps it.
class MemoryHistory final : public store::HealthHistory {
 public:
  absl::Status AddHealthEvents(const std::vector<store::HealthEvent>& events) override {
    for (const store::HealthEvent& e : events) latest_[e.link] = e;
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<store::HealthEvent>> LatestHealthEvents() override {
    std::vector<store::HealthEvent> out;
    for (const auto& [link, e] : latest_) out.push_back(e);
    return out;
  }
  absl::Status AddCounterRates(const std::vector<store::CounterRateRow>& rows) override {
    rates_ += rows.size();
    return absl::OkStatus();
  }
  absl::StatusOr<int64_t> Prune(int64_t) override { return 0; }
  absl::Status RetryUnwritten() override {
    ++retries_;
    return absl::OkStatus();
  }

  std::map<std::string, store::HealthEvent> latest_;
  size_t rates_ = 0;
  int retries_ = 0;
};

// The loop on its own, without the daemon: an unreachable NIC goes down after the
// model's hysteresis, the health handed to the sink excludes its cable, the history
// records the change, and a new monitor restores it from that history.
TEST(HealthMonitorTest, DownLinkReachesTheSinkAndTheHistoryAndIsRestored) {
  absl::StatusOr<FabricPtr> fabric = GenerateClos(::topoplace::testing::TinyClos(2, 2));
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  MemoryHistory history;
  std::vector<sched::FabricHealth> handed;
  HealthMonitor monitor(*fabric, &history,
                        [&](const sched::FabricHealth& h) { handed.push_back(h); }, nullptr, {});
  ASSERT_TRUE(monitor.Restore().ok());
  EXPECT_TRUE(handed.empty()) << "nothing to restore yet";

  const std::string a = "b00-n000/mlx5_0", b = "b00-n001/mlx5_0", c = "b01-n000/mlx5_0",
                    d = "b01-n001/mlx5_0";
  const ProbeSample ok_bd{b, d, 50, 10, true, "tcp"}, ok_cd{c, d, 50, 10, true, "tcp"};
  const auto dead = [](std::string x, std::string y) {
    return ProbeSample{std::move(x), std::move(y), 0, 0, false, "tcp"};
  };
  for (int round = 0; round < 3; ++round) {
    const absl::Time at = kT0 + absl::Seconds(round);
    for (const ProbeSample& s :
         round == 0 ? std::vector<ProbeSample>{{a, b, 50, 10, true, "tcp"}, ok_bd, ok_cd}
                    : std::vector<ProbeSample>{dead(a, b), dead(a, c), ok_bd, ok_cd}) {
      ASSERT_TRUE(monitor.ObserveProbes({s}, at).ok());
    }
    ASSERT_TRUE(monitor.Tick(at).ok());
  }
  const LinkId cable = *FindLink(**fabric, a);
  ASSERT_EQ(handed.size(), 1u);
  EXPECT_TRUE(handed[0].unhealthy_links.contains(cable));
  EXPECT_EQ(monitor.Link(cable).verdict, LinkVerdict::kDown);
  ASSERT_EQ(history.latest_.size(), 1u);
  EXPECT_EQ(history.latest_.begin()->second.to, "down");

  std::vector<sched::FabricHealth> restored;
  HealthMonitor again(*fabric, &history,
                      [&](const sched::FabricHealth& h) { restored.push_back(h); }, nullptr, {});
  ASSERT_TRUE(again.Restore().ok());
  ASSERT_EQ(restored.size(), 1u);
  EXPECT_TRUE(restored[0].unhealthy_links.contains(cable));
}

// A tick without changes gives the history its chance to write what it could not before
// (a shared history keeps states etcd missed).
TEST(HealthMonitorTest, ATickWithoutChangesRetriesWhatTheHistoryCouldNotWrite) {
  absl::StatusOr<FabricPtr> fabric = GenerateClos(::topoplace::testing::TinyClos(2, 2));
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  MemoryHistory history;
  HealthMonitor monitor(*fabric, &history, [](const sched::FabricHealth&) {}, nullptr, {});
  ASSERT_TRUE(monitor.Tick(kT0).ok());
  ASSERT_TRUE(monitor.Tick(kT0 + absl::Seconds(1)).ok());
  EXPECT_EQ(history.retries_, 2);
}

// A replica that shares its history follows another's verdicts by restoring again: a
// link the history now calls down goes down, one it calls healthy again comes back, and a
// restore that changes nothing hands no new health over.
TEST(HealthMonitorTest, RestoringAgainFollowsTheHistoryBothWays) {
  absl::StatusOr<FabricPtr> fabric = GenerateClos(::topoplace::testing::TinyClos(2, 2));
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  MemoryHistory shared;
  std::vector<sched::FabricHealth> handed;
  HealthMonitor follower(*fabric, &shared,
                         [&](const sched::FabricHealth& h) { handed.push_back(h); }, nullptr, {});
  ASSERT_TRUE(follower.Restore().ok());
  const std::string name = LinkName(**fabric, 0);

  ASSERT_TRUE(shared.AddHealthEvents({{name, "healthy", "down", "probes failed", 1}}).ok());
  ASSERT_TRUE(follower.Restore().ok());
  ASSERT_EQ(handed.size(), 1u);
  EXPECT_TRUE(handed.back().unhealthy_links.contains(0));
  EXPECT_EQ(follower.Link(0).verdict, LinkVerdict::kDown);
  EXPECT_EQ(follower.Link(0).reason, "probes failed");
  EXPECT_NE(follower.LastTurnedBad(0), absl::InfinitePast());

  ASSERT_TRUE(follower.Restore().ok());
  EXPECT_EQ(handed.size(), 1u) << "nothing changed, nothing handed over";

  ASSERT_TRUE(shared.AddHealthEvents({{name, "down", "healthy", "probes answer", 2}}).ok());
  ASSERT_TRUE(follower.Restore().ok());
  ASSERT_EQ(handed.size(), 2u);
  EXPECT_TRUE(handed.back().unhealthy_links.empty());
  EXPECT_EQ(follower.Link(0).verdict, LinkVerdict::kHealthy);
}

}  // namespace
}  // namespace topoplace::telemetry
