// Jobs to come on NVLink racks (scheduler/policies/fragment_yield.h), on the GB200 NVL72
// reference fabric (16 racks of 18 four-GPU trays, each rack one NVLink domain): a job of
// 32 trays needs two whole racks; where none is free it would spread over three partly
// used ones. It does so unless the jobs waiting behind it could start in those racks now
// and would otherwise wait longer, in all, than it waits for two whole racks.
#include "scheduler/policies/fragment_yield.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "scheduler/placement/engine.h"
#include "tests/testing/fabrics.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::sched {
namespace {

using ::testing::HasSubstr;

constexpr double kHour = 3600;
// 128 GPUs on 32 trays: two whole racks at the least.
constexpr char kLargeJob[] = "tp=4,pp=4,dp=8,gpus_per_node=4,model=70b";

const FabricPtr& Nvl72() { return testing::Preset("gb200-nvl72"); }

// Every tray busy but the last `free[r]` of rack r; the busy trays of racks 0-2 are
// expected free in `partial_end`, every other busy tray in `other_end`.
struct Cluster {
  Occupancy occupancy;
  std::vector<double> free_in;
};
Cluster PartlyUsedRacks(const std::vector<int>& free, double partial_end, double other_end) {
  const Fabric& f = *Nvl72();
  Cluster c{Occupancy(f), std::vector<double>(f.hosts().size(), 0)};
  for (size_t r = 0; r < f.nvlink_domains().size(); ++r) {
    const std::vector<HostId>& rack = f.nvlink_domains()[r];
    const int keep_free = r < free.size() ? free[r] : 0;
    for (size_t i = 0; i + keep_free < rack.size(); ++i) {
      c.occupancy.SetHost(rack[i], true);
      c.free_in[rack[i]] = r < 3 ? partial_end : other_end;
    }
  }
  return c;
}

absl::StatusOr<PlacementPlan> Place(const std::string& spec, const Cluster& cluster,
                                    std::vector<int> waiting, bool outlook = true) {
  absl::StatusOr<JobSpec> job = ParseJobSpec(spec);
  if (!job.ok()) return job.status();
  PlacementRequest req;
  req.job = *job;
  if (outlook) req.outlook = {std::move(waiting), cluster.free_in};
  return PlacementEngine(Nvl72()).Place(req, cluster.occupancy);
}

size_t RacksOf(const PlacementPlan& plan) {
  std::set<int32_t> racks;
  for (HostId h : plan.node_hosts) racks.insert(Nvl72()->hosts()[h].nvlink_domain_id);
  return racks.size();
}

// Racks 0-2 have 10, 10 and 12 free trays (32 in all, no rack whole); their busy trays free
// up in 2 h, every other rack's in 10 h. Two whole racks are then expected in 2 h; a
// 4-tray job left without racks 0-2 waits 2 h too.
Cluster ThreePartlyUsedRacks() { return PartlyUsedRacks({10, 10, 12}, 2 * kHour, 10 * kHour); }

TEST(FragmentYield, WithNothingKnownOfTheQueueTheJobSpreadsOverThePartlyUsedRacks) {
  absl::StatusOr<PlacementPlan> plan = Place(kLargeJob, ThreePartlyUsedRacks(), {}, false);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(RacksOf(*plan), 3u);
}

TEST(FragmentYield, ItWaitsWhenTheWaitingJobsWouldWaitLongerInAllThanIt) {
  // Two 4-tray jobs, 2 h each without racks 0-2: 4 h against its own 2 h.
  absl::StatusOr<PlacementPlan> plan = Place(kLargeJob, ThreePartlyUsedRacks(), {4, 4});
  ASSERT_EQ(plan.status().code(), absl::StatusCode::kResourceExhausted) << plan.status();
  EXPECT_THAT(plan.status().message(), HasSubstr("needs 2 whole NVLink domains"));
  EXPECT_THAT(plan.status().message(), HasSubstr("3 partly used ones that 2 waiting jobs"));
  EXPECT_THAT(plan.status().message(), HasSubstr("add up to 4.0 h"));
  EXPECT_THAT(plan.status().message(), HasSubstr("expected in 2.0 h"));
}

TEST(FragmentYield, ItPlacesWhenItsOwnWaitIsNoShorter) {
  // One 4-tray job: 2 h against 2 h.
  absl::StatusOr<PlacementPlan> plan = Place(kLargeJob, ThreePartlyUsedRacks(), {4});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(RacksOf(*plan), 3u);
}

TEST(FragmentYield, WaitingJobsThatFitNoneOfTheRacksItTakesDoNotCount) {
  // 13 trays fit none of 10, 10 and 12 free; a job larger than a rack never fits one.
  absl::StatusOr<PlacementPlan> plan = Place(kLargeJob, ThreePartlyUsedRacks(), {13, 13, 20, 36});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(RacksOf(*plan), 3u);
}

TEST(FragmentYield, WaitingJobsThatHaveRoomElsewhereNowDoNotCount) {
  // Rack 5 has 6 free trays besides: a 4-tray job starts there now, without racks 0-2.
  const Cluster cluster = PartlyUsedRacks({10, 10, 12, 0, 0, 6}, 2 * kHour, 10 * kHour);
  absl::StatusOr<PlacementPlan> plan = Place(kLargeJob, cluster, {4, 4, 4, 4});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(RacksOf(*plan), 3u);
}

TEST(FragmentYield, ASoftJobNeverWaits) {
  const std::string soft = std::string(kLargeJob) + ",mode=soft";
  absl::StatusOr<PlacementPlan> plan = Place(soft, ThreePartlyUsedRacks(), {4, 4, 4});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(RacksOf(*plan), 3u);
}

TEST(FragmentYield, OnAsFewRacksAsItNeedsItNeverWaits) {
  // Rack 0 whole free, rack 1 with 14 free trays: two racks, one of them partly used.
  const Cluster cluster = PartlyUsedRacks({18, 14}, 2 * kHour, 10 * kHour);
  absl::StatusOr<PlacementPlan> plan = Place(kLargeJob, cluster, {4, 4, 4});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(RacksOf(*plan), 2u);
}

TEST(FragmentYield, AJobThatFitsOneRackIsNotHeldBack) {
  // 8 trays in rack 2 (12 free), whatever waits.
  absl::StatusOr<PlacementPlan> plan =
      Place("tp=4,pp=2,dp=4,gpus_per_node=4,model=70b", ThreePartlyUsedRacks(), {4, 4, 4});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(RacksOf(*plan), 1u);
}

TEST(FragmentYield, OnAFabricWhoseHostsAreTheirOwnDomainsTheOutlookChangesNothing) {
  const FabricPtr& superpod = testing::Preset("superpod-4su");
  const Occupancy occ(*superpod);
  PlacementRequest req;
  req.job = *ParseJobSpec("tp=8,pp=4,dp=8,model=70b");
  absl::StatusOr<PlacementPlan> alone = PlacementEngine(superpod).Place(req, occ);
  req.outlook = {{1, 1, 2}, std::vector<double>(superpod->hosts().size(), kHour)};
  absl::StatusOr<PlacementPlan> told = PlacementEngine(superpod).Place(req, occ);
  ASSERT_TRUE(alone.ok() && told.ok()) << alone.status() << told.status();
  EXPECT_EQ(alone->node_hosts, told->node_hosts);
}

TEST(FragmentYield, TheEngineTurnsDownAnOutlookThatIsNotOneTimePerHostOrNotATime) {
  Cluster cluster = ThreePartlyUsedRacks();
  cluster.free_in.pop_back();
  absl::StatusOr<PlacementPlan> short_list = Place(kLargeJob, cluster, {4});
  EXPECT_EQ(short_list.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(short_list.status().message(), HasSubstr("287 entries, the fabric 288 hosts"));
  cluster.free_in.push_back(-1);
  absl::StatusOr<PlacementPlan> negative = Place(kLargeJob, cluster, {4});
  EXPECT_EQ(negative.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(negative.status().message(), HasSubstr("outlook.host_free_in_s[287]"));
  cluster.free_in.back() = 0;
  absl::StatusOr<PlacementPlan> empty_job = Place(kLargeJob, cluster, {4, 0});
  EXPECT_EQ(empty_job.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(empty_job.status().message(), HasSubstr("outlook.waiting_nodes[1] is 0"));
}

}  // namespace
}  // namespace topoplace::sched
