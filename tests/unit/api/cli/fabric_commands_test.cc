// `topoplace fabric generate|show|paths|render`, run as a user runs them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/testing/run_command.h"

namespace topoplace {
namespace {

using ::testing::HasSubstr;
using ::topoplace::testing::RunCommand;
using ::topoplace::testing::ShellQuote;

std::string Cli(const std::string& args) { return std::string(TOPOPLACE_CLI) + " " + args; }

std::string TempPath(const std::string& name) {
  return (std::filesystem::path(::testing::TempDir()) / name).string();
}

TEST(FabricShow, Json_HasTheDocumentedStableKeys) {
  auto r = RunCommand(Cli("fabric show --fabric preset:rail-28k --json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(r.out);  // keeps key order
  std::vector<std::string> keys;
  for (auto& [k, v] : j.items()) keys.push_back(k);
  EXPECT_THAT(keys, ::testing::ElementsAre("name", "version", "hosts", "gpus", "nics", "links",
                                           "switches", "tiers", "rails", "blocks", "pods",
                                           "nvlink_domains", "rail_optimized", "warnings"));
  EXPECT_EQ(j["hosts"], 3584);
  EXPECT_EQ(j["gpus"], 28672);
  EXPECT_EQ(j["blocks"], 32);
  EXPECT_EQ(j["tiers"][0]["switches"], 256);
  EXPECT_EQ(j["tiers"][0]["oversubscription"], 7.0);
  EXPECT_TRUE(j["tiers"][1]["oversubscription"].is_null());
}

TEST(FabricShow, Table_IsTheDefault) {
  auto r = RunCommand(Cli("fabric show --fabric preset:superpod-4su"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("hosts 128   gpus 1024"));
  EXPECT_THAT(r.out, HasSubstr("blocks 4   pods 1"));
}

TEST(FabricPaths, ListsEachHopOfTheShortestPathsWithTheirCables) {
  // superpod-4su: a leaf per rail and block, 16 spines, two cables from a leaf to each.
  auto r = RunCommand(
      Cli("fabric paths --fabric preset:superpod-4su --from b00-n000/mlx5_0 --to b01-n003/mlx5_0"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("b00-n000/mlx5_0 to b01-n003/mlx5_0: 3 switch(es), 64 equal-cost "
                               "path(s) counting each cable"));
  EXPECT_THAT(r.out, HasSubstr("  hop 1: b00-n000/mlx5_0--leaf-b00-r0\n"));
  EXPECT_THAT(r.out, HasSubstr("  hop 2: leaf-b00-r0--spine-p0-s00 (x2), leaf-b00-r0--spine-p0-s01 "
                               "(x2), leaf-b00-r0--spine-p0-s02 (x2), leaf-b00-r0--spine-p0-s03 "
                               "(x2) and 12 more links (32 cables in all)\n"));
  EXPECT_THAT(r.out, HasSubstr("  hop 4: b01-n003/mlx5_0--leaf-b01-r0\n"));
  auto json =
      RunCommand(Cli("fabric paths --json --fabric preset:superpod-4su --from b00-n000/mlx5_0 --to "
                     "b00-n001/mlx5_0"));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["switch_hops"], 1);  // one leaf
  EXPECT_EQ(j["equal_cost_paths"], 1);
  EXPECT_EQ(j["hops"].size(), 2u);
  EXPECT_EQ(j["hops"][0][0]["link"], "b00-n000/mlx5_0--leaf-b00-r0");
}

TEST(FabricPaths, AnUnknownNicExitsTwoNamingTheFlag) {
  auto r = RunCommand(
      Cli("fabric paths --fabric preset:superpod-4su --from b00-n000/mlx5_0 --to nope/mlx5_0"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--to 'nope/mlx5_0': no such NIC on fabric superpod-4su"));
}

TEST(FabricGenerate, WritesAFileThatShowReadsBack) {
  const std::string path = TempPath("gen.json");
  auto gen = RunCommand(Cli("fabric generate --preset rail-512 --out " + ShellQuote(path)));
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  auto show = RunCommand(Cli("fabric show --json --fabric " + ShellQuote(path)));
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(nlohmann::json::parse(show.out)["gpus"], 512);
  std::filesystem::remove(path);
}

TEST(FabricShow, MalformedFile_ExitsTwoNamingFileLineAndField) {
  const std::string path = TempPath("bad.json");
  std::ofstream(path)
      << "{\n\"format\": \"topoplace.fabric/v1\",\n"
         "\"nics\": [\n{\"host\": \"ghost\", \"name\": \"e0\", \"speed_gbps\": 1}\n]}\n";
  auto r = RunCommand(Cli("fabric show --fabric " + ShellQuote(path)));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr(path + ":4: nics[0].host: no host named 'ghost'"));
  EXPECT_TRUE(r.out.empty());
  std::filesystem::remove(path);
}

TEST(FabricShow, MissingFileOrPreset_ExitsTwo) {
  EXPECT_EQ(RunCommand(Cli("fabric show --fabric /nonexistent.json")).exit_code, 2);
  auto r = RunCommand(Cli("fabric show --fabric preset:nope"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("known presets: rail-512"));
}

TEST(Cli, UsageErrors_ExitTwo) {
  EXPECT_EQ(RunCommand(Cli("fabric show")).exit_code, 2);  // --fabric is required
  EXPECT_EQ(RunCommand(Cli("no-such-command")).exit_code, 2);
  EXPECT_EQ(RunCommand(Cli("--help")).exit_code, 0);
}

}  // namespace
}  // namespace topoplace

namespace topoplace {
namespace {

TEST(FabricRender, LargestPresetIsAggregatedIntoOnePictureOfItsPods) {
  const std::string path = TempPath("clos3.svg");
  auto r = RunCommand(Cli("fabric render --fabric preset:clos3-100k --out " + ShellQuote(path)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("wrote " + path));
  std::ifstream in(path);
  const std::string svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
  EXPECT_THAT(svg, HasSubstr(">pod 15<"));
  EXPECT_LT(std::filesystem::file_size(path), 100'000u);
  std::filesystem::remove(path);
}

TEST(FabricRender, DrillOptionsAreCheckedAndAnAbsentBlockIsNamed) {
  const std::string path = TempPath("x.svg");
  auto absent = RunCommand(
      Cli("fabric render --fabric preset:superpod-4su --block 9 --out " + ShellQuote(path)));
  EXPECT_EQ(absent.exit_code, 2);
  EXPECT_THAT(absent.err, HasSubstr("block: 9 is not a block of 'superpod-4su' (0 to 3)"));
  auto mixed = RunCommand(Cli(
      "fabric render --fabric preset:superpod-4su --detail --block 1 --out " + ShellQuote(path)));
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_THAT(mixed.err, HasSubstr("leave out --detail"));
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace topoplace
