#include "plugins/common/node_name_map.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace topoplace::plugins {
namespace {

using ::testing::HasSubstr;

TEST(NodeNameMap, MapsListedHostsAndKeepsTheRest) {
  auto map =
      NodeNameMap::Parse("# fabric  slurm\nb00-n000 gpu001\n\nb00-n001\tgpu002 # ok\n", "map.txt");
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_EQ(map->NodeName("b00-n000"), "gpu001");
  EXPECT_EQ(map->NodeName("b00-n001"), "gpu002");
  EXPECT_EQ(map->NodeName("b00-n002"), "b00-n002");
  EXPECT_EQ(map->HostName("gpu002"), "b00-n001");
  EXPECT_EQ(map->HostName("b00-n002"), "b00-n002");
}

TEST(NodeNameMap, Load_RefusesWhatIsNotARegularFileAndNamesIt) {
  auto directory = NodeNameMap::Load("/tmp");
  EXPECT_EQ(directory.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(directory.status().message()), HasSubstr("node map '/tmp'"));
  EXPECT_EQ(NodeNameMap::Load("/nonexistent/map.txt").status().code(), absl::StatusCode::kNotFound);
}

TEST(NodeNameMap, BadLines_NameTheLine) {
  EXPECT_THAT(std::string(NodeNameMap::Parse("a b\nc\n", "map.txt").status().message()),
              HasSubstr("map.txt:2: expected 'FABRIC_HOST SLURM_NODE', got 1 fields"));
  EXPECT_THAT(std::string(NodeNameMap::Parse("a b\na c\n", "m").status().message()),
              HasSubstr("m:2: host 'a' is mapped twice"));
  EXPECT_THAT(std::string(NodeNameMap::Parse("a b\nc b\n", "m").status().message()),
              HasSubstr("m:2: Slurm node 'b' is the target of two hosts"));
}

}  // namespace
}  // namespace topoplace::plugins
