// Why a job waits (scheduler/framework/wait_reason.h): a refused job is told, at each
// level of the fabric, the freest domain in hosts that could take one of its nodes, how
// many hosts it is short at the level it is bound to, and what kept the other hosts out.
#include "scheduler/framework/wait_reason.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "scheduler/job/job_spec.h"
#include "scheduler/state/health.h"
#include "scheduler/state/occupancy.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::sched {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// gb200-nvl72 (16 racks of 18 trays of 4 GPUs, two racks per block) with every tray busy
// but `free_in_first` trays of the first rack and one tray of each other rack.
Occupancy MostlyBusy(const Fabric& fabric, int free_in_first) {
  Occupancy occ(fabric);
  for (HostId h = 0; h < static_cast<HostId>(fabric.hosts().size()); ++h) occ.SetHost(h, true);
  const std::vector<std::vector<HostId>>& racks = fabric.nvlink_domains();
  for (int i = 0; i < free_in_first; ++i) occ.SetHost(racks[0][static_cast<size_t>(i)], false);
  for (size_t r = 1; r < racks.size(); ++r) occ.SetHost(racks[r].front(), false);
  return occ;
}

TEST(WaitReason, NamesTheFreestDomainAtEachLevelAndTheHostsShortWhereTheJobIsBound) {
  const FabricPtr fabric = *GeneratePreset("gb200-nvl72");
  const Occupancy occ = MostlyBusy(*fabric, 10);
  const HealthView health(*fabric, {});
  // 16 trays of 4 GPUs, bound to one block (two racks: 10 + 1 trays free there).
  const JobSpec job = *ParseJobSpec("tp=4,pp=4,dp=4,gpus_per_node=4,max_tier=block");
  const Inventory inv = *Inventory::Build(*fabric, occ, health, job);
  const std::string& rack = fabric->hosts()[fabric->nvlink_domains()[0][0]].nvlink_domain;

  const std::string room = DescribeRoom(inv, job, &health);

  EXPECT_THAT(room, HasSubstr("room for 16 nodes of 4 GPUs: "));
  EXPECT_THAT(room, HasSubstr("largest free NVLink domain: 40 GPUs (10 hosts, " + rack + ")"));
  EXPECT_THAT(room, HasSubstr("largest free block: 44 GPUs (11 hosts, block 0; 5 short in one "
                              "block)"));
  // 10 + 15 free trays: enough hosts in the cluster, so nothing is short there.
  EXPECT_THAT(room, HasSubstr("cluster: 100 GPUs (25 hosts)"));
  EXPECT_THAT(room, HasSubstr("hosts left out: 263 busy, 0 unhealthy, 0 excluded"));
  EXPECT_THAT(room, Not(HasSubstr("uplink")));
}

TEST(WaitReason, AJobNotBoundToABlockIsShortOnlyInTheCluster) {
  const FabricPtr fabric = *GeneratePreset("gb200-nvl72");
  const Occupancy occ = MostlyBusy(*fabric, 1);
  const HealthView health(*fabric, {});
  const JobSpec job = *ParseJobSpec("tp=4,pp=1,dp=20,gpus_per_node=4");
  const Inventory inv = *Inventory::Build(*fabric, occ, health, job);

  const std::string room = DescribeRoom(inv, job);

  EXPECT_THAT(room, HasSubstr("largest free block: 8 GPUs (2 hosts, block 0)"));
  EXPECT_THAT(room, HasSubstr("cluster: 64 GPUs (16 hosts; 4 short)"));
}

TEST(WaitReason, HostsKeptOutByHealthAndBlocksWithBadUplinksAreCounted) {
  const FabricPtr fabric = *GeneratePreset("superpod-4su");
  Occupancy occ(*fabric);
  FabricHealth bad;
  bad.unhealthy_hosts.insert(0);
  bad.unhealthy_hosts.insert(1);
  // One uplink of the first block's first leaf down.
  for (LinkId l = 0; l < static_cast<LinkId>(fabric->links().size()); ++l) {
    const Link& link = fabric->links()[l];
    const SwitchId leaf = fabric->blocks()[0].leaves.front();
    const bool leaf_up = link.a.kind == Endpoint::Kind::kSwitch &&
                         link.b.kind == Endpoint::Kind::kSwitch &&
                         (link.a.id == leaf || link.b.id == leaf);
    if (leaf_up) {
      bad.unhealthy_links.insert(l);
      break;
    }
  }
  const HealthView health(*fabric, bad);
  const JobSpec job = *ParseJobSpec("tp=8,pp=1,dp=200");
  const Inventory inv = *Inventory::Build(*fabric, occ, health, job);

  const std::string room = DescribeRoom(inv, job, &health);

  EXPECT_THAT(room, HasSubstr("cluster: 1008 GPUs (126 hosts; 74 short)"));
  EXPECT_THAT(room, HasSubstr("hosts left out: 0 busy, 2 unhealthy, 0 excluded"));
  EXPECT_THAT(room, HasSubstr("; blocks with a down or degraded uplink: 1"));
}

TEST(WaitReason, OnlyARefusalForWantOfRoomIsWorded) {
  const FabricPtr fabric = *GeneratePreset("superpod-4su");
  const Occupancy occ(*fabric);
  const HealthView health(*fabric, {});
  const JobSpec job = *ParseJobSpec("tp=8,pp=1,dp=2");
  const Inventory inv = *Inventory::Build(*fabric, occ, health, job);

  const absl::Status full = WithWaitReason(absl::ResourceExhaustedError("no room"), inv, job);
  EXPECT_TRUE(absl::IsResourceExhausted(full));
  EXPECT_THAT(full.message(), HasSubstr("no room; room for 2 nodes of 8 GPUs: "));
  const absl::Status bad = absl::InvalidArgumentError("tp: expected a power of two");
  EXPECT_EQ(WithWaitReason(bad, inv, job), bad);
  EXPECT_TRUE(WithWaitReason(absl::OkStatus(), inv, job).ok());
}

}  // namespace
}  // namespace topoplace::sched
