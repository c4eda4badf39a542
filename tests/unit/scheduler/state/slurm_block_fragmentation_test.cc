// Slurm's block fragmentation metric: Slurm's own five test cases (transcribed as data in
// tests/fixtures/peers/slurm/test_topology_fragmentation.txt), then the layout our
// slurm-block export gives a fabric.
#include "scheduler/state/slurm_block_fragmentation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "tests/testing/fabrics.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::sched {
namespace {

struct PeerCase {
  std::string name;
  int64_t expected = 0;
  std::vector<bool> free;
};

// The fixture's layout and cases; fails the test on a line it does not understand.
void ReadSlurmFixture(SlurmBlockLayout& layout, std::vector<PeerCase>& cases) {
  std::ifstream in(std::string(TP_PEER_FIXTURES) + "/slurm/test_topology_fragmentation.txt");
  ASSERT_TRUE(in.good());
  int nodes = 0;
  std::vector<int> sizes_in_nodes;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string key;
    if (!(words >> key) || key[0] == '#') continue;
    if (key == "nodes") {
      words >> nodes;
    } else if (key == "base_block_nodes") {
      words >> layout.base_block_nodes;
    } else if (key == "block") {
      std::string name;
      words >> name;
      std::vector<HostId> hosts;
      for (HostId h; words >> h;) hosts.push_back(h);
      layout.nodes_in_blocks += static_cast<int64_t>(hosts.size());
      layout.base_blocks.push_back(hosts);
    } else if (key == "block_sizes_nodes") {
      for (int s; words >> s;) sizes_in_nodes.push_back(s);
    } else if (key == "case") {
      PeerCase c;
      words >> c.name >> c.expected;
      c.free.assign(static_cast<size_t>(nodes), true);
      std::string busy;
      while (words >> busy) {
        if (busy == "all") c.free.assign(static_cast<size_t>(nodes), false);
        if (busy != "all" && busy != "none") c.free[static_cast<size_t>(std::stoi(busy))] = false;
      }
      cases.push_back(c);
    } else {
      FAIL() << "unknown fixture line: " << line;
    }
  }
  // Slurm keeps the block sizes that fit the cluster, in base blocks.
  layout.block_sizes.clear();
  const int count = static_cast<int>(layout.base_blocks.size());
  for (int s : sizes_in_nodes) {
    if (s / layout.base_block_nodes <= count)
      layout.block_sizes.push_back(s / layout.base_block_nodes);
  }
}

TEST(SlurmBlockFragmentation, ReproducesSlurmsOwnTestCases) {
  SlurmBlockLayout layout;
  std::vector<PeerCase> cases;
  ReadSlurmFixture(layout, cases);
  ASSERT_EQ(cases.size(), 5u);
  EXPECT_THAT(layout.block_sizes, ::testing::ElementsAre(1, 2, 4, 8));
  for (const PeerCase& c : cases) {
    EXPECT_EQ(SlurmBlockFragmentation(layout, c.free), c.expected) << "case " << c.name;
  }
}

TEST(SlurmBlockFragmentation, AFabricsBlocksAreItsBaseBlocksWithPowerOfTwoSizes) {
  // 8 blocks of 4 hosts: Slurm's test cluster in our terms.
  auto fabric = GenerateClos(testing::TinyClos(/*blocks=*/8, /*nodes=*/4));
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  const SlurmBlockLayout layout = SlurmBlockLayoutOf(**fabric);
  EXPECT_EQ(layout.base_blocks.size(), 8u);
  EXPECT_EQ(layout.base_block_nodes, 4);
  EXPECT_THAT(layout.block_sizes, ::testing::ElementsAre(1, 2, 4, 8));
  Occupancy occupancy(**fabric);
  EXPECT_EQ(SlurmBlockFragmentation(layout, **fabric, occupancy), 0);
  // One busy GPU on the first host makes it a busy node: Slurm's case "0".
  occupancy.Set((*fabric)->hosts()[0].gpus[0], true);
  EXPECT_EQ(SlurmBlockFragmentation(layout, **fabric, occupancy), 61);
}

TEST(SlurmBlockFragmentation, NvlinkRacksAreTheBaseBlocksOfAnNvl72Fabric) {
  auto fabric = GeneratePreset("gb200-nvl72");
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  const SlurmBlockLayout layout = SlurmBlockLayoutOf(**fabric);
  EXPECT_EQ(layout.base_blocks.size(), (*fabric)->nvlink_domains().size());
  EXPECT_EQ(layout.base_block_nodes, 18);  // trays per rack
}

}  // namespace
}  // namespace topoplace::sched
