// Importing a production-like dump (GenerateMessyIbnetdiscoverDump) with and without the
// agent reports of its hosts: the true hosts, blocks and rails, and every anomaly named.
#include <unistd.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "topology/discovery/agent_report.h"
#include "topology/discovery/fabric_import.h"
#include "topology/discovery/ibnetdiscover.h"
#include "topology/discovery/ibnetdiscover_generator.h"
#include "topology/io/fabric_file.h"
#include "topology/model/fabric_summary.h"

namespace topoplace::discovery {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class MessyFabricTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { dump_ = new MessyIbDump(GenerateMessyIbnetdiscoverDump()); }
  static void TearDownTestSuite() {
    delete dump_;
    dump_ = nullptr;
  }

  static FabricPtr Import(bool with_reports) {
    ImportSources sources;
    if (with_reports) {
      for (size_t i = 0; i < dump_->agent_reports.size(); ++i) {
        sources.agent_report_texts.push_back(
            {absl::StrCat("report-", i, ".json"), dump_->agent_reports[i]});
      }
    }
    // One file per process: ctest runs each test of the suite as its own process.
    const std::string path =
        absl::StrCat(::testing::TempDir(), "/messy-ibnetdiscover-", getpid(), ".txt");
    {
      FILE* f = fopen(path.c_str(), "w");
      EXPECT_NE(f, nullptr);
      fwrite(dump_->dump.data(), 1, dump_->dump.size(), f);
      fclose(f);
    }
    sources.ibnetdiscover = {path};
    absl::StatusOr<FabricPtr> fabric = ImportFabric(sources, "messy");
    EXPECT_TRUE(fabric.ok()) << fabric.status();
    return fabric.ok() ? *fabric : nullptr;
  }

  static std::string Warnings(const Fabric& fabric) {
    return absl::StrJoin(fabric.warnings(), "\n");
  }

  static MessyIbDump* dump_;
};

MessyIbDump* MessyFabricTest::dump_ = nullptr;

TEST_F(MessyFabricTest, TheDumpHasTheMessItPromises) {
  EXPECT_EQ(dump_->hosts, 128);
  EXPECT_GT(dump_->unattributed_without_reports, dump_->unattributed_with_reports);
  EXPECT_GT(dump_->unattributed_with_reports, 0);
  EXPECT_FALSE(dump_->agent_reports.empty());
  EXPECT_THAT(dump_->dump, HasSubstr("MT4129 ConnectX7 Mellanox Technologies"));
  EXPECT_THAT(dump_->dump, HasSubstr("\"localhost mlx5_0\""));
  EXPECT_THAT(dump_->dump, HasSubstr("Aggregation Node"));
  EXPECT_THAT(dump_->dump, HasSubstr("ufm-server-01"));
  EXPECT_THAT(dump_->dump, Not(HasSubstr("leaf-b005-r3:")));  // the lost leaf
}

TEST_F(MessyFabricTest, WithoutReports_GivesTheTrueHostsBlocksAndRails) {
  FabricPtr fabric = Import(false);
  ASSERT_NE(fabric, nullptr);
  EXPECT_EQ(static_cast<int>(fabric->hosts().size()), dump_->hosts);
  EXPECT_EQ(static_cast<int>(fabric->blocks().size()), dump_->blocks);
  EXPECT_EQ(static_cast<int>(fabric->rails().size()), dump_->rails);
  EXPECT_EQ(static_cast<int>(fabric->unattributed_nics().size()),
            dump_->unattributed_without_reports);
  for (const std::string& name : dump_->real_host_names) {
    EXPECT_TRUE(fabric->FindHost(name).has_value()) << name;
  }
  for (const Block& block : fabric->blocks()) EXPECT_EQ(block.hosts.size(), 16u);
  EXPECT_EQ(fabric->aggregation_nodes().size(), 8u);
  EXPECT_FALSE(fabric->FindHost("ufm-server-01").has_value());
}

TEST_F(MessyFabricTest, WithReports_PlacesTheReportedFactoryHcas) {
  FabricPtr fabric = Import(true);
  ASSERT_NE(fabric, nullptr);
  EXPECT_EQ(static_cast<int>(fabric->hosts().size()), dump_->hosts);
  EXPECT_EQ(static_cast<int>(fabric->blocks().size()), dump_->blocks);
  EXPECT_EQ(static_cast<int>(fabric->rails().size()), dump_->rails);
  EXPECT_EQ(static_cast<int>(fabric->unattributed_nics().size()), dump_->unattributed_with_reports);
  EXPECT_THAT(Warnings(*fabric), HasSubstr("placed in their host by GUID"));
  // b000-n010 reports; its rail-3 HCA has a factory description and is cabled.
  const std::optional<NicId> nic = fabric->FindNic("b000-n010/mlx5_3");
  ASSERT_TRUE(nic.has_value());
  EXPECT_GE(fabric->nics()[*nic].leaf, 0);
  EXPECT_EQ(fabric->nics()[*nic].rail, 3);
}

TEST_F(MessyFabricTest, FactoryHcasOfASharedSystemImageJoinTheirHostWithoutReports) {
  FabricPtr fabric = Import(false);
  ASSERT_NE(fabric, nullptr);
  // Block 7's hosts share one system image GUID over their HCAs.
  for (int h = 0; h < 16; ++h) {
    const std::string host = absl::StrFormat("b007-n%03d", h);
    for (int r = 0; r < 4; ++r) {
      const std::optional<NicId> nic = fabric->FindNic(absl::StrFormat("%s/mlx5_%d", host, r));
      ASSERT_TRUE(nic.has_value()) << host << " " << r;
      EXPECT_EQ(fabric->nics()[*nic].rail, r) << host;
    }
  }
  EXPECT_THAT(Warnings(*fabric), HasSubstr("system image GUID"));
}

TEST_F(MessyFabricTest, UnattributedHcasAreCountedPerLeafAndAreNoHosts) {
  FabricPtr fabric = Import(false);
  ASSERT_NE(fabric, nullptr);
  for (const Host& host : fabric->hosts()) {
    EXPECT_FALSE(absl::StartsWith(host.name, "ca-")) << host.name;
    EXPECT_FALSE(absl::StartsWith(host.name, "H-")) << host.name;
  }
  EXPECT_THAT(Warnings(*fabric),
              HasSubstr(absl::StrCat(" HCAs that no NodeDescription, agent report or system image "
                                     "GUID places in a host")));
  EXPECT_THAT(Warnings(*fabric),
              HasSubstr(absl::StrCat("leaves hold ", dump_->unattributed_without_reports)));
  EXPECT_THAT(FabricSummaryTable(*fabric),
              HasSubstr(absl::StrCat("unattributed HCAs ", dump_->unattributed_without_reports)));
  // They survive a round trip through the fabric file.
  absl::StatusOr<FabricPtr> again = ParseFabricJson(FabricToJson(*fabric), "messy.json");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ((*again)->unattributed_nics().size(), fabric->unattributed_nics().size());
  EXPECT_EQ(FabricToJson(**again), FabricToJson(*fabric));
}

TEST_F(MessyFabricTest, CrossedCablesAreNamedAndTheNicTakesTheRailItReaches) {
  FabricPtr fabric = Import(false);
  ASSERT_NE(fabric, nullptr);
  const std::string warnings = Warnings(*fabric);
  EXPECT_THAT(warnings, HasSubstr("crossed cables?"));
  EXPECT_THAT(warnings,
              HasSubstr(absl::StrCat(dump_->crossed_host,
                                     "/mlx5_1 on leaf-b002-r2 (rail 2; expected rail 1)")));
  EXPECT_THAT(warnings,
              HasSubstr(absl::StrCat(dump_->crossed_host,
                                     "/mlx5_2 on leaf-b002-r1 (rail 1; expected rail 2)")));
  const std::optional<NicId> nic = fabric->FindNic(dump_->crossed_host + "/mlx5_1");
  ASSERT_TRUE(nic.has_value());
  EXPECT_EQ(fabric->nics()[*nic].rail, 2);
  // Only the two leaves the crossed host lands on mix rails.
  EXPECT_THAT(warnings, HasSubstr("2 leaves receive NICs of several indexes (not rail-optimised): "
                                  "leaf-b002-r1, leaf-b002-r2"));
}

TEST_F(MessyFabricTest, NamesakesOnDifferentSystemsStayTwoHosts) {
  for (bool with_reports : {false, true}) {
    FabricPtr fabric = Import(with_reports);
    ASSERT_NE(fabric, nullptr);
    int localhosts = 0;
    for (const Host& host : fabric->hosts()) {
      if (absl::StartsWith(host.name, "localhost")) {
        ++localhosts;
        EXPECT_NE(host.name, "localhost");
      }
    }
    EXPECT_EQ(localhosts, 2) << "with reports: " << with_reports;
    EXPECT_TRUE(fabric->FindHost("ubuntu").has_value());
    EXPECT_THAT(Warnings(*fabric), HasSubstr("renamed"));
    EXPECT_THAT(Warnings(*fabric), HasSubstr("localhost -> localhost-"));
  }
}

TEST_F(MessyFabricTest, HostsOfTheBlockThatLostALeafKeepTheirBlockAndAreFlagged) {
  FabricPtr fabric = Import(false);
  ASSERT_NE(fabric, nullptr);
  const std::optional<HostId> first = fabric->FindHost("b005-n000");
  ASSERT_TRUE(first.has_value());
  const int32_t block = fabric->hosts()[*first].block;
  ASSERT_GE(block, 0);
  EXPECT_EQ(fabric->blocks()[block].hosts.size(), 16u);
  EXPECT_EQ(fabric->blocks()[block].leaves.size(), 3u);
  const std::optional<NicId> lost = fabric->FindNic("b005-n000/mlx5_3");
  ASSERT_TRUE(lost.has_value());
  EXPECT_EQ(fabric->nics()[*lost].leaf, -1);
  EXPECT_THAT(Warnings(*fabric), HasSubstr("blocks reach no leaf of some rail (a lost leaf?): "
                                           "the block of b005-n000 (16 hosts) lacks rail 3"));
}

}  // namespace
}  // namespace topoplace::discovery
