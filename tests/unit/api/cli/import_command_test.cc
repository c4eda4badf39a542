// `topoplace fabric import`, run as a user runs it: sources in, summary and fabric file out.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/testing/run_command.h"

namespace topoplace {
namespace {

using ::testing::HasSubstr;
using ::topoplace::testing::RunCommand;
using ::topoplace::testing::ShellQuote;

const std::string kMessy =
    std::string(TOPOPLACE_DISCOVERY_FIXTURES) + "/ibnetdiscover/messy-fabric.txt";

std::string Cli(const std::string& args) { return std::string(TOPOPLACE_CLI) + " " + args; }

TEST(FabricImport, AggregationNodeIsCountedAndSavedNotAHost) {
  const std::string out = (std::filesystem::path(::testing::TempDir()) / "messy.json").string();
  auto r = RunCommand(Cli("fabric import --json --ibnetdiscover " + ShellQuote(kMessy) + " --out " +
                          ShellQuote(out)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json summary = nlohmann::json::parse(r.out);
  EXPECT_EQ(summary["aggregation_nodes"], 1);
  EXPECT_EQ(summary["blocks"], 1);  // the storage HCA does not split h1 off
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr("{\"name\": \"an-a000000000000004\", \"switch\": \"leaf-a\"}"));

  // The saved file shows the same count, in the table too.
  auto show = RunCommand(Cli("fabric show --fabric " + ShellQuote(out)));
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_THAT(show.out, HasSubstr("sharp aggregation nodes 1"));
  std::filesystem::remove(out);
}

TEST(FabricImport, ServerThatCannotBeReachedIsAnErrorNamingIt) {
  auto r = RunCommand(Cli("fabric import --server 127.0.0.1:1"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("topoplaced at 127.0.0.1:1"));
}

}  // namespace
}  // namespace topoplace
