#include "scheduler/policies/rail_matching.h"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "tests/testing/fabrics.h"

namespace topoplace::sched {
namespace {

// superpod-4su: 32 hosts of 8 GPUs per block, GPU i of every host on rail i.
const FabricPtr& Superpod() { return testing::Preset("superpod-4su"); }

HostId BlockHost(int i) { return Superpod()->blocks()[0].hosts[i]; }

// Marks local GPUs [from, to) of block 0's host `i` busy.
void Busy(Occupancy& occ, int i, int from, int to) {
  for (int g = from; g < to; ++g) occ.Set(Superpod()->hosts()[BlockHost(i)].gpus[g], true);
}

std::optional<std::vector<HostId>> Matched(const Occupancy& occ, const char* spec, int count) {
  const JobSpec job = *ParseJobSpec(spec);
  const HealthView health(*Superpod(), {});
  const Inventory inv = *Inventory::Build(*Superpod(), occ, health, job);
  return RailMatchedHosts(inv, job, /*block=*/0, count);
}

TEST(RailMatchedHosts, TakesTheFirstHostsWhoseFreeGpusHaveTheSameIndices) {
  Occupancy occ(*Superpod());
  // Host 0 has GPUs 4-7 free, host 1 all eight (it gives a node GPUs 0-3), host 2 GPUs 4-7.
  Busy(occ, 0, 0, 4);
  Busy(occ, 2, 0, 4);
  for (int i = 3; i < 32; ++i) Busy(occ, i, 0, 8);
  const std::optional<std::vector<HostId>> hosts =
      Matched(occ, "tp=4,pp=1,dp=2,gpus_per_node=4", 2);
  ASSERT_TRUE(hosts.has_value());
  EXPECT_EQ(*hosts, (std::vector<HostId>{BlockHost(0), BlockHost(2)}));
}

TEST(RailMatchedHosts, SaysNothingWhenTheFirstHostsAlreadyShareRails) {
  Occupancy occ(*Superpod());
  Busy(occ, 0, 0, 4);
  Busy(occ, 1, 0, 4);
  Busy(occ, 2, 4, 8);
  EXPECT_FALSE(Matched(occ, "tp=4,pp=1,dp=2,gpus_per_node=4", 2).has_value());
  // Whole-host nodes: every host gives all its GPUs.
  EXPECT_FALSE(Matched(Occupancy(*Superpod()), "tp=8,pp=1,dp=4", 4).has_value());
}

TEST(RailMatchedHosts, SaysNothingWhenNoIndexSetHasEnoughHosts) {
  Occupancy occ(*Superpod());
  // Three hosts, three different first-free sets, every other host full.
  Busy(occ, 0, 0, 2);
  Busy(occ, 1, 0, 4);
  Busy(occ, 2, 0, 6);
  for (int i = 3; i < 32; ++i) Busy(occ, i, 0, 8);
  EXPECT_FALSE(Matched(occ, "tp=2,pp=1,dp=2,gpus_per_node=2", 2).has_value());
}

}  // namespace
}  // namespace topoplace::sched
