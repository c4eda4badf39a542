#include "topology/discovery/ibnetdiscover.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "topology/discovery/fabric_import.h"
#include "topology/discovery/ibnetdiscover_records.h"
#include "topology/io/fabric_file.h"
#include "topology/model/fabric_summary.h"

namespace topoplace::discovery {
namespace {

using ::testing::HasSubstr;

const std::string kShared = std::string(TP_SHARED_FIXTURES) + "/ibnetdiscover/";
const std::string kMessy = std::string(TP_DISCOVERY_FIXTURES) + "/ibnetdiscover/messy-fabric.txt";

FabricPtr Import(const std::string& path) {
  absl::StatusOr<FabricPtr> fabric = ImportFabric({.ibnetdiscover = {path}}, "test");
  EXPECT_TRUE(fabric.ok()) << fabric.status();
  return fabric.ok() ? *fabric : nullptr;
}

std::string Warnings(const Fabric& fabric) { return absl::StrJoin(fabric.warnings(), "\n"); }

const Nic& NicNamed(const Fabric& fabric, const std::string& host_slash_nic) {
  const std::optional<NicId> id = fabric.FindNic(host_slash_nic);
  EXPECT_TRUE(id.has_value()) << host_slash_nic;
  return fabric.nics()[id.value_or(0)];
}

TEST(Ibnetdiscover, SyntheticFixtureGivesTwoHostsOnOneLeafUnderOneSpine) {
  FabricPtr fabric = Import(kShared + "ibnetdiscover-synthetic-fixture.txt");
  ASSERT_NE(fabric, nullptr);
  EXPECT_EQ(fabric->hosts().size(), 2u);
  ASSERT_TRUE(fabric->FindHost("tp-h1").has_value());
  ASSERT_TRUE(fabric->FindSwitch("tp-leaf1").has_value());
  ASSERT_TRUE(fabric->FindSwitch("tp-spine1").has_value());
  EXPECT_EQ(fabric->switches()[*fabric->FindSwitch("tp-leaf1")].tier, 1);
  EXPECT_EQ(fabric->switches()[*fabric->FindSwitch("tp-spine1")].tier, 2);
  const Nic& nic = NicNamed(*fabric, "tp-h1/mlx5_0");
  EXPECT_EQ(nic.speed_gbps, 200);  // 4xHDR
  EXPECT_EQ(fabric->blocks().size(), 1u);
}

TEST(Ibnetdiscover, ManpageSampleHasOnlyUnattributedHcasAndNamesSwitchesByGuid) {
  FabricPtr fabric = Import(kShared + "ibnetdiscover-manpage-sample.txt");
  ASSERT_NE(fabric, nullptr);
  // Four HCAs, all "MT23108 InfiniHost Mellanox Technologies", nothing names their hosts:
  // no host at all, and every cabled port an unattributed NIC on its switch.
  EXPECT_EQ(fabric->hosts().size(), 0u);
  std::vector<std::string> unattributed;
  for (const UnattributedNic& nic : fabric->unattributed_nics()) unattributed.push_back(nic.name);
  EXPECT_THAT(unattributed, ::testing::Contains("H-0008f10403960558-p1"));
  EXPECT_THAT(unattributed, ::testing::Contains("H-0008f10403960558-p2"));
  EXPECT_TRUE(fabric->FindSwitch("S-005442ba00003080").has_value());
  EXPECT_TRUE(fabric->FindSwitch("S-0008f10400410015").has_value());
  EXPECT_THAT(Warnings(*fabric), HasSubstr("kept as unattributed NICs, not hosts"));
  EXPECT_THAT(Warnings(*fabric), HasSubstr("switches named by GUID"));
  // Two cables between the switches; one of them is 4xSDR on one end and 1xSDR on the
  // other: the first report (10 Gb/s) is kept and the mismatch reported.
  int cables = 0;
  for (const Link& link : fabric->links()) {
    if (link.a.kind == Endpoint::Kind::kSwitch && link.b.kind == Endpoint::Kind::kSwitch) {
      cables += link.count;
      EXPECT_EQ(link.speed_gbps, 10);
    }
  }
  EXPECT_EQ(cables, 2);
  EXPECT_THAT(Warnings(*fabric), HasSubstr("report different rates"));
}

TEST(Ibnetdiscover, AggregationNodeIsNotAHost) {
  FabricPtr fabric = Import(kMessy);
  ASSERT_NE(fabric, nullptr);
  for (const Host& host : fabric->hosts()) {
    EXPECT_THAT(host.name, ::testing::Not(HasSubstr("a000000000000004")));
  }
  EXPECT_THAT(Warnings(*fabric), HasSubstr("SHARP aggregation nodes"));
  EXPECT_THAT(Warnings(*fabric), HasSubstr("on leaf-a port 41"));
}

TEST(Ibnetdiscover, AggregationNodeIsKeptInItsSwitchAndRoundTripsThroughTheFabricFile) {
  FabricPtr fabric = Import(kMessy);
  ASSERT_NE(fabric, nullptr);
  ASSERT_EQ(fabric->aggregation_nodes().size(), 1u);
  const AggregationNode& an = fabric->aggregation_nodes()[0];
  EXPECT_EQ(an.name, "an-a000000000000004");
  EXPECT_EQ(fabric->switches()[an.switch_id].name, "leaf-a");
  EXPECT_THAT(Warnings(*fabric), HasSubstr("SHARP aggregation nodes kept as in-network compute"));
  EXPECT_THAT(FabricSummaryTable(*fabric), HasSubstr("sharp aggregation nodes 1"));
  EXPECT_THAT(FabricSummaryJson(*fabric), HasSubstr("\"aggregation_nodes\": 1"));

  const std::string text = FabricToJson(*fabric);
  EXPECT_THAT(text, HasSubstr("\"aggregation_nodes\": [\n    {\"name\": \"an-a000000000000004\", "
                              "\"switch\": \"leaf-a\"}\n  ],\n  \"unattributed_nics\": [\n"));
  absl::StatusOr<FabricPtr> again = ParseFabricJson(text, "again");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(FabricToJson(**again), text);  // byte for byte
  // A spec carrying the node merges with discovery without duplicating it.
  absl::StatusOr<FabricPtr> merged =
      BuildFabricFromFacts({FactsFromFabric(**again, "spec"), FactsFromFabric(*fabric, "ib")}, "m");
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ((*merged)->aggregation_nodes().size(), 1u);
}

TEST(Ibnetdiscover, AggregationNodeOfAnUnknownSwitchInAFabricFileIsAnErrorNamingTheField) {
  absl::StatusOr<FabricPtr> f = ParseFabricJson(
      "{\n  \"format\": \"topoplace.fabric/v1\",\n  \"name\": \"x\",\n  \"version\": 1,\n"
      "  \"hosts\": [],\n  \"nics\": [],\n  \"gpus\": [],\n  \"switches\": [\n"
      "    {\"name\": \"s1\"}\n  ],\n  \"links\": [],\n  \"aggregation_nodes\": [\n"
      "    {\"name\": \"an-1\", \"switch\": \"s2\"}\n  ]\n}\n",
      "f.json");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(),
            "f.json:13: aggregation_nodes[0].switch: no switch 's2' (declare it in switches)");
}

TEST(Ibnetdiscover, ManagementServerIsLeftOutWithAWarning) {
  FabricPtr fabric = Import(kMessy);
  ASSERT_NE(fabric, nullptr);
  EXPECT_FALSE(fabric->FindHost("ufm-01").has_value());
  EXPECT_THAT(Warnings(*fabric), HasSubstr("management servers"));
  EXPECT_THAT(Warnings(*fabric), HasSubstr("'ufm-01 mlx5_0' on leaf-a port 5"));
}

TEST(Ibnetdiscover, FactoryDefaultHcasNoSourcePlacesAreUnattributedNicsNotHosts) {
  FabricPtr fabric = Import(kMessy);
  ASSERT_NE(fabric, nullptr);
  EXPECT_FALSE(fabric->FindHost("ca-0000000000000901").has_value());
  EXPECT_FALSE(fabric->FindHost("MT4129").has_value());
  ASSERT_EQ(fabric->unattributed_nics().size(), 2u);
  const UnattributedNic& first = fabric->unattributed_nics()[0];
  EXPECT_EQ(first.name, "H-0000000000000901");
  EXPECT_EQ(fabric->switches()[first.switch_id].name, "leaf-a");
  EXPECT_EQ(first.port, "4");
  EXPECT_THAT(Warnings(*fabric), HasSubstr("leaf-a: H-0000000000000901 (port 4)"));
  EXPECT_THAT(FabricSummaryTable(*fabric), HasSubstr("unattributed HCAs 2"));
  EXPECT_THAT(FabricSummaryJson(*fabric), HasSubstr("\"unattributed_nics\": 2"));
}

TEST(Ibnetdiscover, AgentReportGuidPlacesAFactoryDefaultHca) {
  IbnetdiscoverOptions options;
  options.reported_hcas[0x901] = ReportedHca{.host = "h6", .device = "mlx5_0"};
  absl::StatusOr<FabricFacts> facts = LoadIbnetdiscoverFile(kMessy, options);
  ASSERT_TRUE(facts.ok()) << facts.status();
  absl::StatusOr<FabricPtr> fabric = BuildFabricFromFacts({*std::move(facts)}, "test");
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  const Nic& nic = NicNamed(**fabric, "h6/mlx5_0");
  ASSERT_GE(nic.leaf, 0);
  EXPECT_EQ((*fabric)->switches()[nic.leaf].name, "leaf-a");
  EXPECT_EQ((*fabric)->unattributed_nics().size(), 1u);
  EXPECT_THAT(Warnings(**fabric), HasSubstr("h6/mlx5_0 (agent report"));
}

TEST(Ibnetdiscover, SwitchWithFactoryDescriptionIsNamedByGuid) {
  FabricPtr fabric = Import(kMessy);
  ASSERT_NE(fabric, nullptr);
  const std::optional<SwitchId> leaf_b = fabric->FindSwitch("S-a000000000000002");
  ASSERT_TRUE(leaf_b.has_value());
  EXPECT_EQ(fabric->switches()[*leaf_b].tier, 1);
  EXPECT_THAT(Warnings(*fabric), HasSubstr("'Quantum Mellanox Technologies'"));
}

TEST(Ibnetdiscover, HostMissingAnHcaKeepsItsOtherHcasOnTheirRails) {
  FabricPtr fabric = Import(kMessy);
  ASSERT_NE(fabric, nullptr);
  // h3 lost mlx5_1; a placeholder keeps the slot, so mlx5_0 stays NIC 0 on leaf-a's rail.
  const std::optional<HostId> h3 = fabric->FindHost("h3");
  ASSERT_TRUE(h3.has_value());
  ASSERT_EQ(fabric->hosts()[*h3].nics.size(), 2u);
  EXPECT_EQ(NicNamed(*fabric, "h3/mlx5_0").index, 0);
  EXPECT_EQ(NicNamed(*fabric, "h3/mlx5_1").leaf, -1);
  EXPECT_EQ(NicNamed(*fabric, "h3/mlx5_0").rail, NicNamed(*fabric, "h2/mlx5_0").rail);
  EXPECT_THAT(Warnings(*fabric), HasSubstr("h3 (mlx5_1)"));
}

TEST(Ibnetdiscover, StorageHcaIsOrderedAfterComputeHcas) {
  FabricPtr fabric = Import(kMessy);
  ASSERT_NE(fabric, nullptr);
  // h1: mlx5_0 (leaf-a), mlx5_1 (storage-leaf, own island), mlx5_2 (leaf-b).
  EXPECT_EQ(NicNamed(*fabric, "h1/mlx5_0").index, 0);
  EXPECT_EQ(NicNamed(*fabric, "h1/mlx5_2").index, 1);
  EXPECT_EQ(NicNamed(*fabric, "h1/mlx5_1").index, 2);
  EXPECT_EQ(NicNamed(*fabric, "h1/mlx5_2").rail, NicNamed(*fabric, "h2/mlx5_1").rail);
  EXPECT_THAT(Warnings(*fabric), HasSubstr("h1 (mlx5_1)"));
}

TEST(Ibnetdiscover, StorageHcaDoesNotSplitOrMarkPartialTheComputeBlock) {
  FabricPtr fabric = Import(kMessy);
  ASSERT_NE(fabric, nullptr);
  // h1's storage HCA is on its own island (1 cable against 10): its block key is
  // {leaf-a, leaf-b} like h2, h4 and h5, so none of them is "partial"; only h3 (which lost
  // mlx5_1) reaches part of the block (the two factory-default CAs are no hosts).
  auto block_of = [&](const std::string& host) {
    return fabric->hosts()[*fabric->FindHost(host)].block;
  };
  const int32_t block = block_of("h1");
  ASSERT_GE(block, 0);
  for (const char* host : {"h2", "h3", "h4", "h5"}) EXPECT_EQ(block_of(host), block) << host;
  EXPECT_EQ(fabric->blocks().size(), 1u);
  EXPECT_EQ(fabric->blocks()[block].leaves.size(), 2u);
  const std::string warnings = Warnings(*fabric);
  EXPECT_THAT(warnings, HasSubstr("1 hosts reach only part of their block's leaves"));
  EXPECT_THAT(warnings, HasSubstr("h3 (1 of 2 leaves)"));
  for (const char* host : {"h1 (", "h2 (", "h4 (", "h5 ("}) {
    EXPECT_THAT(warnings, ::testing::Not(HasSubstr(std::string(host) + "2 of")));
  }
  // The storage leaf is a leaf of no block.
  EXPECT_EQ(fabric->switches()[*fabric->FindSwitch("storage-leaf")].block, -1);
}

TEST(Ibnetdiscover, WidthAndRateGiveTheCableSpeed) {
  int32_t lanes = 0;
  double gbps = 0;
  ASSERT_TRUE(ParseIbWidthSpeed("4xNDR", lanes, gbps));
  EXPECT_EQ(lanes, 4);
  EXPECT_EQ(gbps, 400);
  ASSERT_TRUE(ParseIbWidthSpeed("1xSDR", lanes, gbps));
  EXPECT_EQ(gbps, 2.5);
  ASSERT_TRUE(ParseIbWidthSpeed("4xFDR10", lanes, gbps));
  EXPECT_EQ(gbps, 40);
  EXPECT_FALSE(ParseIbWidthSpeed("4xWAT", lanes, gbps));
  EXPECT_FALSE(ParseIbWidthSpeed("xNDR", lanes, gbps));
}

constexpr char kSwitchHeader[] =
    "Switch\t8 \"S-0000000000000001\"\t# \"MF0;leaf:MQM/U1\" enhanced port 0 lid 1 lmc 0\n";

TEST(Ibnetdiscover, TruncatedLineIsAnErrorNamingTheLine) {
  const std::string text = std::string(kSwitchHeader) + "[1]\t\"H-00000000000000";
  absl::StatusOr<FabricFacts> facts = ParseIbnetdiscover(text, "cut.txt");
  ASSERT_FALSE(facts.ok());
  EXPECT_THAT(facts.status().message(), HasSubstr("cut.txt:2:"));
  EXPECT_THAT(facts.status().message(), HasSubstr("expected a peer"));
}

TEST(Ibnetdiscover, GarbageLineIsAnErrorNamingTheLine) {
  const std::string text = std::string(kSwitchHeader) + "hello world\n";
  absl::StatusOr<FabricFacts> facts = ParseIbnetdiscover(text, "junk.txt");
  ASSERT_FALSE(facts.ok());
  EXPECT_THAT(facts.status().message(), HasSubstr("junk.txt:2: expected a Switch/Ca/Rt record"));
}

TEST(Ibnetdiscover, DuplicateGuidIsAnError) {
  const std::string text = std::string(kSwitchHeader) + kSwitchHeader;
  absl::StatusOr<FabricFacts> facts = ParseIbnetdiscover(text, "dup.txt");
  ASSERT_FALSE(facts.ok());
  EXPECT_THAT(facts.status().message(), HasSubstr("dup.txt:2: GUID S-0000000000000001 already"));
}

TEST(Ibnetdiscover, PortListedTwiceIsAnError) {
  const std::string text = std::string(kSwitchHeader) +
                           "[1]\t\"H-0000000000000002\"[1]\t# \"h1 mlx5_0\" lid 2 4xNDR\n"
                           "[1]\t\"H-0000000000000003\"[1]\t# \"h2 mlx5_0\" lid 3 4xNDR\n";
  absl::StatusOr<FabricFacts> facts = ParseIbnetdiscover(text, "twice.txt");
  ASSERT_FALSE(facts.ok());
  EXPECT_THAT(facts.status().message(), HasSubstr("twice.txt:3: port 1 is linked twice"));
}

TEST(Ibnetdiscover, PeersThatDisagreeKeepTheFirstAndWarn) {
  // The switch says port 1 goes to h1, h2's record says its port goes to switch port 1.
  const std::string text = std::string(kSwitchHeader) +
                           "[1]\t\"H-0000000000000002\"[1]\t# \"h1 mlx5_0\" lid 2 4xNDR\n"
                           "Ca\t1 \"H-0000000000000002\"\t# \"h1 mlx5_0\"\n"
                           "[1](2)\t\"S-0000000000000001\"[1]\t# lid 2 4xNDR\n"
                           "Ca\t1 \"H-0000000000000003\"\t# \"h2 mlx5_0\"\n"
                           "[1](3)\t\"S-0000000000000001\"[1]\t# lid 3 4xNDR\n";
  absl::StatusOr<FabricFacts> facts = ParseIbnetdiscover(text, "clash.txt");
  ASSERT_TRUE(facts.ok()) << facts.status();
  EXPECT_EQ(facts->links.size(), 1u);
  EXPECT_THAT(absl::StrJoin(facts->warnings, "\n"), HasSubstr("ports disagree about their peer"));
}

TEST(Ibnetdiscover, PeerWithoutRecordIsLeftOutWithAWarning) {
  const std::string text =
      std::string(kSwitchHeader) + "[1]\t\"H-0000000000000002\"[1]\t# \"h1 mlx5_0\" lid 2 4xNDR\n";
  absl::StatusOr<FabricFacts> facts = ParseIbnetdiscover(text, "short.txt");
  ASSERT_TRUE(facts.ok()) << facts.status();
  EXPECT_TRUE(facts->links.empty());
  EXPECT_THAT(absl::StrJoin(facts->warnings, "\n"), HasSubstr("truncated dump?"));
}

TEST(Ibnetdiscover, InputWithoutRecordsIsAnError) {
  absl::StatusOr<FabricFacts> facts = ParseIbnetdiscover("# nothing\n\n", "empty.txt");
  ASSERT_FALSE(facts.ok());
  EXPECT_THAT(facts.status().message(), HasSubstr("no Switch, Ca or Rt record"));
}

TEST(Ibnetdiscover, MissingFileIsNotFound) {
  EXPECT_EQ(LoadIbnetdiscoverFile("/nonexistent/dump.txt").status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace topoplace::discovery
