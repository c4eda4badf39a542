// MapRanks: each node's ranks on its host's free GPUs, in order, and a clear error (never a
// crash) for a host it cannot use.
#include "scheduler/mapping/rank_map.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "scheduler/job/job_spec.h"
#include "scheduler/state/occupancy.h"
#include "tests/testing/fabrics.h"

namespace topoplace::sched {
namespace {

using ::testing::HasSubstr;

class MapRanksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<FabricPtr> fabric = GenerateClos(testing::TinyClos(1, 4, /*gpus=*/4));
    ASSERT_TRUE(fabric.ok()) << fabric.status();
    fabric_ = *fabric;
    absl::StatusOr<JobSpec> job = ParseJobSpec("tp=4,pp=2,dp=1,gpus_per_node=4,model=70b");
    ASSERT_TRUE(job.ok()) << job.status();
    job_ = *job;
  }
  FabricPtr fabric_;
  JobSpec job_;
};

TEST_F(MapRanksTest, EachNodesRanksTakeItsHostsFreeGpusInOrder) {
  absl::StatusOr<JobSpec> job = ParseJobSpec("tp=2,pp=2,dp=1,gpus_per_node=2,model=70b");
  ASSERT_TRUE(job.ok()) << job.status();
  Occupancy occupancy(*fabric_);
  occupancy.Set(fabric_->hosts()[2].gpus[0], true);
  const std::vector<HostId> hosts = {1, 2};
  absl::StatusOr<std::vector<RankSlot>> slots = MapRanks(*fabric_, *job, hosts, occupancy);
  ASSERT_TRUE(slots.ok()) << slots.status();
  ASSERT_EQ(slots->size(), 4u);
  const std::vector<GpuId> want = {fabric_->hosts()[1].gpus[0], fabric_->hosts()[1].gpus[1],
                                   fabric_->hosts()[2].gpus[1], fabric_->hosts()[2].gpus[2]};
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ((*slots)[r].host, hosts[r / 2]) << "rank " << r;
    EXPECT_EQ((*slots)[r].gpu, want[r]) << "rank " << r;
    EXPECT_EQ((*slots)[r].nic, GpuNic(*fabric_, fabric_->hosts()[hosts[r / 2]], want[r]));
  }
}

TEST_F(MapRanksTest, AHostWithTooFewFreeGpusIsAFailedPreconditionNamingIt) {
  Occupancy occupancy(*fabric_);
  occupancy.Set(fabric_->hosts()[2].gpus[0], true);
  const std::vector<HostId> hosts = {1, 2};
  absl::StatusOr<std::vector<RankSlot>> slots = MapRanks(*fabric_, job_, hosts, occupancy);
  ASSERT_EQ(slots.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(slots.status().message(), HasSubstr(fabric_->hosts()[2].name));
  EXPECT_THAT(slots.status().message(), HasSubstr("3 free GPUs"));
}

TEST_F(MapRanksTest, AHostOutsideTheFabricIsAnInvalidArgumentNotACrash) {
  const Occupancy occupancy(*fabric_);
  for (const HostId bad : {HostId{4}, HostId{-1}, HostId{1 << 30}}) {
    const std::vector<HostId> hosts = {0, bad};
    absl::StatusOr<std::vector<RankSlot>> slots = MapRanks(*fabric_, job_, hosts, occupancy);
    ASSERT_EQ(slots.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(slots.status().message(), HasSubstr("node 1 is host"));
    EXPECT_THAT(slots.status().message(), HasSubstr("hosts 0 to 3"));
  }
}

}  // namespace
}  // namespace topoplace::sched
