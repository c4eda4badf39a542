// Bounded waiting for faster NVLink domains (scheduler/placement/faster_domains.h), on the
// GB200 NVL72 reference fabric (16 racks of 18 four-GPU trays, each rack one NVLink
// domain). A dense job of 32 trays in 16-tray pipeline stages runs on two wholly free
// racks with no DP byte off NVLink; on three partly used ones it splits stages, and the
// few NICs at each split carry a DP group's whole all-reduce. It waits for the two racks
// when they are expected free sooner than the run time the split would lose.
#include "scheduler/placement/faster_domains.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "scheduler/placement/engine.h"
#include "tests/testing/fabrics.h"

namespace topoplace::sched {
namespace {

using ::testing::HasSubstr;

constexpr double kHour = 3600;
constexpr char kStagedJob[] =
    "tp=4,pp=4,dp=8,gpus_per_node=4,h=8192,s=4096,b=1,layers=80,params=7e+10,mb=8,dtype=bf16";

const FabricPtr& Nvl72() { return testing::Preset("gb200-nvl72"); }

// Racks 0-2 keep 11, 11 and 10 trays free (32 in all, no stage of 16 fits one); their busy
// trays free up in `partial_end`, every other rack's in 10 h.
struct Cluster {
  Occupancy occupancy;
  std::vector<double> free_in;
};
Cluster SplitRacks(double partial_end) {
  const Fabric& f = *Nvl72();
  Cluster c{Occupancy(f), std::vector<double>(f.hosts().size(), 0)};
  const std::vector<int> free = {11, 11, 10};
  for (size_t r = 0; r < f.nvlink_domains().size(); ++r) {
    const std::vector<HostId>& rack = f.nvlink_domains()[r];
    const int keep_free = r < free.size() ? free[r] : 0;
    for (size_t i = 0; i + keep_free < rack.size(); ++i) {
      c.occupancy.SetHost(rack[i], true);
      c.free_in[rack[i]] = r < free.size() ? partial_end : 10 * kHour;
    }
  }
  return c;
}

// The job runs `run_s` at reference speed; one job larger than any rack waits behind it
// (so the outlook is known and no fragment is left to it).
absl::StatusOr<PlacementPlan> Place(const std::string& policy, const std::string& spec,
                                    const Cluster& cluster, double run_s) {
  absl::StatusOr<JobSpec> job = ParseJobSpec(spec);
  if (!job.ok()) return job.status();
  PlacementRequest req;
  req.policy = policy;
  req.job = *job;
  req.outlook = {{40}, cluster.free_in, run_s};
  return PlacementEngine(Nvl72()).Place(req, cluster.occupancy);
}

size_t RacksOf(const PlacementPlan& plan) {
  std::set<int32_t> racks;
  for (HostId h : plan.node_hosts) racks.insert(Nvl72()->hosts()[h].nvlink_domain_id);
  return racks.size();
}

TEST(FasterDomains, ALongJobWaitsForWholeRacksThatFreeUpSoonerThanItWouldLose) {
  absl::StatusOr<PlacementPlan> plan =
      Place("topoplace", kStagedJob, SplitRacks(kHour), 20 * kHour);
  ASSERT_EQ(plan.status().code(), absl::StatusCode::kResourceExhausted) << plan.status();
  EXPECT_THAT(plan.status().message(), HasSubstr("on 2 wholly free NVLink domains 1.00x"));
  EXPECT_THAT(plan.status().message(), HasSubstr("expected in 1.0 h"));
}

TEST(FasterDomains, AShortJobPlacesNowWhereTheWaitIsLongerThanItsLoss) {
  // The split costs it about a quarter of its run: 0.5 h of 2 h, less than the 1 h wait.
  absl::StatusOr<PlacementPlan> plan = Place("topoplace", kStagedJob, SplitRacks(kHour), 2 * kHour);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(RacksOf(*plan), 3u);
}

TEST(FasterDomains, WithoutItsRunTimeOrWhenSoftOrForABaselineItPlacesNow) {
  for (const auto& [policy, spec, run_s] :
       std::vector<std::tuple<std::string, std::string, double>>{
           {"topoplace", kStagedJob, 0},
           {"topoplace", std::string(kStagedJob) + ",mode=soft", 20 * kHour},
           {"topoplace", std::string(kStagedJob) + ",max_wait=30m", 20 * kHour},
           {"first-fit", kStagedJob, 20 * kHour},
           {"random", kStagedJob, 20 * kHour}}) {
    absl::StatusOr<PlacementPlan> plan = Place(policy, spec, SplitRacks(kHour), run_s);
    ASSERT_TRUE(plan.ok()) << policy << " " << spec << " " << run_s << ": " << plan.status();
    EXPECT_EQ(RacksOf(*plan), 3u) << policy << " " << spec;
  }
}

TEST(FasterDomains, TheRuleWeighsTheWaitAgainstTheRunTimeLost) {
  const Cluster cluster = SplitRacks(2 * kHour);
  const JobSpec job = *ParseJobSpec(kStagedJob);
  const HealthView health(*Nvl72(), {});
  const Inventory inv = *Inventory::Build(*Nvl72(), cluster.occupancy, health, job);
  const QueueOutlook outlook{{40}, cluster.free_in, 10 * kHour};
  // 1.5x now, 1.0x on two whole racks: 5 h lost against a 2 h wait.
  std::optional<FasterDomains> w =
      WaitForFasterDomains(*Nvl72(), inv, job, outlook, 1.0, {1.5, 3}, {1.0, 2});
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->domains, 2);
  EXPECT_DOUBLE_EQ(w->wait_s, 2 * kHour);
  EXPECT_DOUBLE_EQ(w->lost_s, 5 * kHour);
  EXPECT_DOUBLE_EQ(w->slowdown_now, 1.5);
  EXPECT_DOUBLE_EQ(w->slowdown_then, 1.0);
  // 1.1x now: 1 h lost, shorter than the wait.
  EXPECT_FALSE(WaitForFasterDomains(*Nvl72(), inv, job, outlook, 1.0, {1.1, 3}, {1.0, 2}));
  // No faster then than now.
  EXPECT_FALSE(WaitForFasterDomains(*Nvl72(), inv, job, outlook, 1.0, {1.0, 3}, {1.0, 2}));
  // More whole racks than the fabric has: never.
  EXPECT_FALSE(WaitForFasterDomains(*Nvl72(), inv, job, outlook, 1.0, {9.0, 3}, {1.0, 17}));
  // Nothing known of the queue.
  EXPECT_FALSE(WaitForFasterDomains(*Nvl72(), inv, job, QueueOutlook{}, 1.0, {1.5, 3}, {1.0, 2}));
}

TEST(FasterDomains, OnAFabricWhoseHostsAreTheirOwnDomainsItNeverWaits) {
  const FabricPtr& superpod = testing::Preset("superpod-4su");
  const JobSpec job = *ParseJobSpec("tp=8,pp=4,dp=8,model=70b");
  const HealthView health(*superpod, {});
  const Inventory inv = *Inventory::Build(*superpod, Occupancy(*superpod), health, job);
  const QueueOutlook outlook{{40}, std::vector<double>(superpod->hosts().size(), 0), 10 * kHour};
  EXPECT_FALSE(WaitForFasterDomains(*superpod, inv, job, outlook, 1.0, {2.0, 32}, {1.0, 32}));
}

TEST(FasterDomains, ARunTimeThatIsNotAFiniteNumberIsTurnedDown) {
  const Cluster cluster = SplitRacks(kHour);
  for (const double run_s :
       {-1.0, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    absl::StatusOr<PlacementPlan> plan = Place("topoplace", kStagedJob, cluster, run_s);
    EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument) << run_s;
    EXPECT_THAT(plan.status().message(), HasSubstr("outlook.run_s")) << run_s;
  }
}

}  // namespace
}  // namespace topoplace::sched
