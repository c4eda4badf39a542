// What is free, in what shape (scheduler/state/free_capacity.h): per level, every domain's
// free GPUs and whole free hosts, the largest whole-host job one domain takes, and the idle
// hosts by the idle run they sit in.
#include "scheduler/state/free_capacity.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "topology/generate/reference_fabrics.h"

namespace topoplace::sched {
namespace {

const FreeCapacity::Level& LevelOf(const FreeCapacity& free, const std::string& level) {
  for (const FreeCapacity::Level& l : free.levels) {
    if (l.level == level) return l;
  }
  ADD_FAILURE() << "no level " << level;
  return free.levels.front();
}

TEST(FreeCapacity, OnNvl72RacksEveryLevelCountsFreeGpusAndWholeFreeTrays) {
  const FabricPtr fabric = *GeneratePreset("gb200-nvl72");
  Occupancy occ(*fabric);
  for (HostId h = 0; h < static_cast<HostId>(fabric->hosts().size()); ++h) occ.SetHost(h, true);
  const std::vector<std::vector<HostId>>& racks = fabric->nvlink_domains();
  // Rack 0: 10 whole trays free and one with a single GPU free; rack 1: 3 whole trays.
  for (int i = 0; i < 10; ++i) occ.SetHost(racks[0][static_cast<size_t>(i)], false);
  occ.Set(fabric->hosts()[static_cast<size_t>(racks[0][10])].gpus[0], false);
  for (int i = 0; i < 3; ++i) occ.SetHost(racks[1][static_cast<size_t>(i)], false);
  // One of rack 1's free trays is unhealthy: it counts nowhere.
  FabricHealth bad;
  bad.unhealthy_hosts.insert(racks[1][0]);
  const HealthView health(*fabric, bad);

  const FreeCapacity free = MeasureFreeCapacity(*fabric, occ, health);

  ASSERT_EQ(free.levels.front().level, "nvlink_domain");
  ASSERT_EQ(free.levels.back().level, "cluster");
  const FreeCapacity::Level& domains = LevelOf(free, "nvlink_domain");
  ASSERT_EQ(domains.domains.size(), racks.size());
  EXPECT_EQ(domains.domains[0].name,
            fabric->hosts()[static_cast<size_t>(racks[0][0])].nvlink_domain);
  EXPECT_EQ(domains.domains[0].free_gpus, 41);
  EXPECT_EQ(domains.domains[0].free_hosts, 10);
  EXPECT_EQ(domains.domains[1].free_gpus, 8);
  EXPECT_EQ(domains.domains[1].free_hosts, 2);
  EXPECT_EQ(domains.largest_hosts, 10);
  EXPECT_EQ(domains.largest_gpus, 40);
  // Racks 0 and 1 are block 0.
  const FreeCapacity::Level& blocks = LevelOf(free, "block");
  EXPECT_EQ(blocks.domains[0].name, "block 0");
  EXPECT_EQ(blocks.domains[0].free_gpus, 49);
  EXPECT_EQ(blocks.largest_hosts, 12);
  const FreeCapacity::Level& cluster = LevelOf(free, "cluster");
  EXPECT_EQ(cluster.domains[0].free_gpus, 49);
  EXPECT_EQ(cluster.largest_gpus, 48);
  // Idle runs: 10 trays in rack 0, 2 in rack 1.
  EXPECT_EQ(free.idle_hosts_by_run, (std::map<int64_t, int64_t>{{2, 2}, {10, 10}}));
}

TEST(FreeCapacity, WhereEveryHostIsItsOwnDomainTheBlockIsTheSmallestLevel) {
  const FabricPtr fabric = *GeneratePreset("superpod-4su");
  const Occupancy occ(*fabric);
  const HealthView health(*fabric, {});

  const FreeCapacity free = MeasureFreeCapacity(*fabric, occ, health);

  EXPECT_EQ(free.levels.front().level, "block");
  const FreeCapacity::Level& blocks = free.levels.front();
  EXPECT_EQ(blocks.largest_hosts, static_cast<int64_t>(fabric->blocks()[0].hosts.size()));
  EXPECT_EQ(LevelOf(free, "cluster").largest_gpus, static_cast<int64_t>(fabric->gpus().size()));
  int64_t idle = 0;
  for (const auto& [size, hosts] : free.idle_hosts_by_run) idle += hosts;
  EXPECT_EQ(idle, static_cast<int64_t>(fabric->hosts().size()));
}

}  // namespace
}  // namespace topoplace::sched
