// The aggregated fabric picture: every preset fits a screen (at most about 2,000 px each
// way) and names each of its blocks (or pods, on the largest) with their counts; drilling
// into a pod shows its blocks, into a block every host and leaf; a cable declared down
// marks its block; names are escaped; a pod or block the fabric lacks is refused.
#include "topology/render/fabric_overview.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "topology/generate/reference_fabrics.h"
#include "topology/io/fabric_file.h"

namespace topoplace::render {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr int kScreen = 2000;  // px: what a picture may take each way

std::pair<int, int> Size(const std::string& svg) {
  std::smatch m;
  const std::regex size(R"re(<svg [^>]*width="(\d+)" height="(\d+)")re");
  if (!std::regex_search(svg, m, size)) return {-1, -1};
  return {std::stoi(m[1]), std::stoi(m[2])};
}

FabricPtr Preset(const std::string& name) {
  absl::StatusOr<FabricPtr> fabric = GeneratePreset(name);
  EXPECT_TRUE(fabric.ok()) << fabric.status();
  return *fabric;
}

TEST(FabricOverview, EveryPresetFitsAScreenAndNamesEachBlockOrPodWithItsCounts) {
  for (const std::string& name : PresetNames()) {
    SCOPED_TRACE(name);
    const FabricPtr fabric = Preset(name);
    absl::StatusOr<std::string> svg = FabricOverviewSvg(*fabric);
    ASSERT_TRUE(svg.ok()) << svg.status();
    const auto [width, height] = Size(*svg);
    EXPECT_GT(width, 0);
    EXPECT_LE(width, kScreen);
    EXPECT_LE(height, kScreen);
    EXPECT_THAT(*svg, HasSubstr(absl::StrCat(fabric->hosts().size(), " hosts · ",
                                             fabric->gpus().size(), " GPUs")));
    const bool pods = static_cast<int>(fabric->blocks().size()) > kMaxBlockTiles;
    const int tiles = static_cast<int>(pods ? fabric->pods().size() : fabric->blocks().size());
    for (int i = 0; i < tiles; ++i) {
      const std::string label =
          pods ? absl::StrCat(">pod ", i, "<")
               : absl::StrCat(">block ", i, fabric->pods().size() > 1 ? " · pod " : "<");
      EXPECT_THAT(*svg, HasSubstr(label));
    }
    // A block tile's hosts are the fabric's: rail-28k's 32 blocks of 112 hosts.
    if (name == "rail-28k") {
      EXPECT_EQ(tiles, 32);
      EXPECT_THAT(*svg, HasSubstr("112 hosts · 896 GPUs"));
      EXPECT_THAT(*svg, HasSubstr("7.00:1"));  // its leaves' oversubscription
    }
    if (name == "gb200-nvl72") {
      EXPECT_THAT(*svg, HasSubstr("NVLink racks of 18"));
    }
  }
}

TEST(FabricOverview, DrillingIntoABlockDrawsEveryHostAndLeafOnOneScreen) {
  const FabricPtr fabric = Preset("rail-28k");
  absl::StatusOr<std::string> svg = FabricOverviewSvg(*fabric, {.block = 3});
  ASSERT_TRUE(svg.ok()) << svg.status();
  const auto [width, height] = Size(*svg);
  EXPECT_LE(width, kScreen);
  EXPECT_LE(height, kScreen);
  const Block& block = fabric->blocks()[3];
  for (HostId h : block.hosts) EXPECT_THAT(*svg, HasSubstr(">" + fabric->hosts()[h].name + "<"));
  for (SwitchId s : block.leaves) {
    EXPECT_THAT(*svg, HasSubstr(">" + fabric->switches()[s].name + "<"));
  }
  EXPECT_THAT(*svg, Not(HasSubstr(">" + fabric->hosts()[fabric->blocks()[4].hosts[0]].name + "<")));
}

TEST(FabricOverview, DrillingIntoAPodOfTheLargestFabricShowsItsBlocks) {
  const FabricPtr fabric = Preset("clos3-100k");
  absl::StatusOr<std::string> svg = FabricOverviewSvg(*fabric, {.pod = 2});
  ASSERT_TRUE(svg.ok()) << svg.status();
  EXPECT_LE(Size(*svg).first, kScreen);
  EXPECT_LE(Size(*svg).second, kScreen);
  for (int32_t b : fabric->pods()[2].blocks)
    EXPECT_THAT(*svg, HasSubstr(absl::StrCat(">block ", b, "<")));
  EXPECT_THAT(*svg, Not(HasSubstr(absl::StrCat(">block ", fabric->pods()[3].blocks[0], "<"))));
}

TEST(FabricOverview, ACableDeclaredDownMarksItsBlockAndNamesAreEscaped) {
  FabricPtr small = *GenerateClos(ClosParams{.name = "tiny",
                                             .tiers = 2,
                                             .blocks_per_pod = 2,
                                             .nodes_per_block = 2,
                                             .gpus_per_node = 2,
                                             .rails = 2});
  std::string json = FabricToJson(*small);
  // The first host gets a name with markup; its first cable is declared down.
  const std::string first = small->hosts()[0].name;
  json = absl::StrReplaceAll(
      json, {{"\"" + first + "\"", "\"<i>&amp<i>\""}, {"\"" + first + "/", "\"<i>&amp<i>/"}});
  const size_t link = json.find("\"<i>&amp<i>/", json.find("\"links\""));
  ASSERT_NE(link, std::string::npos) << json.substr(0, 2000);
  const size_t state = json.find("\"state\": \"up\"", link);
  ASSERT_NE(state, std::string::npos);
  json.replace(state, 13, "\"state\": \"down\"");
  absl::StatusOr<FabricPtr> fabric = ParseFabricJson(json, "tiny.json");
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  const std::string whole = *FabricOverviewSvg(**fabric);
  EXPECT_THAT(whole, HasSubstr("class=\"bad\""));
  EXPECT_THAT(whole, HasSubstr(">1 down<"));
  const std::string block = *FabricOverviewSvg(**fabric, {.block = 0});
  EXPECT_THAT(block, HasSubstr("&lt;i&gt;&amp;amp&lt;i&gt;"));
  EXPECT_THAT(block, Not(HasSubstr("<i>")));
}

TEST(FabricOverview, APodOrBlockTheFabricLacksIsRefusedNamingTheRange) {
  const FabricPtr fabric = Preset("superpod-4su");
  absl::StatusOr<std::string> block = FabricOverviewSvg(*fabric, {.block = 4});
  EXPECT_EQ(block.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(block.status().message(), HasSubstr("0 to 3"));
  EXPECT_EQ(FabricOverviewSvg(*fabric, {.pod = 1}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace topoplace::render
