#include "topology/discovery/lldp.h"

#include <string>

#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "topology/discovery/fabric_import.h"
#include "topology/discovery/read_file.h"

namespace topoplace::discovery {
namespace {

using ::testing::HasSubstr;

const std::string kLldp = std::string(TP_SHARED_FIXTURES) + "/lldp/";

LldpView Parse(const std::string& file, const std::string& local) {
  absl::StatusOr<std::string> text = ReadWholeFile(kLldp + file);
  EXPECT_TRUE(text.ok()) << text.status();
  absl::StatusOr<LldpView> view = ParseLldpNeighbors(text.value_or(""), file, local);
  EXPECT_TRUE(view.ok()) << view.status();
  return view.ok() ? *view : LldpView{};
}

TEST(Lldp, Json0FromAHostNamesItsSwitchAndPort) {
  const LldpView view = Parse("lldp-neighbors-tp-h1.json0", "tp-h1");
  ASSERT_EQ(view.neighbors.size(), 1u);
  const LldpNeighbor& n = view.neighbors[0];
  EXPECT_EQ(n.local_port, "eth0");
  EXPECT_EQ(n.system_name, "tp-sw1");
  EXPECT_EQ(n.port, "swp1");
  EXPECT_EQ(n.role, NodeRole::kSwitch);
  EXPECT_EQ(n.speed_gbps, 10);  // 10GbaseT
}

TEST(Lldp, JsonAndJson0OfTheSameSwitchGiveTheSameNeighbors) {
  const LldpView json0 = Parse("lldp-neighbors-tp-sw1.json0", "tp-sw1");
  const LldpView json = Parse("lldp-neighbors-tp-sw1.json", "tp-sw1");
  ASSERT_EQ(json0.neighbors.size(), 3u);
  ASSERT_EQ(json.neighbors.size(), json0.neighbors.size());
  for (size_t i = 0; i < json0.neighbors.size(); ++i) {
    EXPECT_EQ(json.neighbors[i].local_port, json0.neighbors[i].local_port);
    EXPECT_EQ(json.neighbors[i].system_name, json0.neighbors[i].system_name);
    EXPECT_EQ(json.neighbors[i].port, json0.neighbors[i].port);
    EXPECT_EQ(json.neighbors[i].role, json0.neighbors[i].role);
  }
  EXPECT_EQ(json0.neighbors[0].role, NodeRole::kHost);    // tp-h1: Station
  EXPECT_EQ(json0.neighbors[2].role, NodeRole::kSwitch);  // tp-sw2: Bridge
}

TEST(Lldp, LocalChassisDocumentNamesTheLocalSystem) {
  absl::StatusOr<std::string> chassis = ReadWholeFile(kLldp + "lldp-chassis-tp-sw2.json");
  absl::StatusOr<std::string> neighbors = ReadWholeFile(kLldp + "lldp-neighbors-tp-sw2.json");
  ASSERT_TRUE(chassis.ok() && neighbors.ok());
  absl::StatusOr<LldpView> view = ParseLldpNeighbors(*chassis + *neighbors, "both", "");
  ASSERT_TRUE(view.ok()) << view.status();
  EXPECT_EQ(view->local_name, "tp-sw2");
  EXPECT_EQ(view->local_role, NodeRole::kSwitch);
  EXPECT_EQ(view->neighbors.size(), 2u);
}

TEST(Lldp, FixtureDirectoryImportsThreeHostsUnderTwoLeaves) {
  absl::StatusOr<FabricPtr> fabric = ImportFabric({.lldp = {kLldp}}, "lldp");
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  const Fabric& f = **fabric;
  EXPECT_EQ(f.hosts().size(), 3u);
  ASSERT_EQ(f.switches().size(), 2u);
  for (const Switch& sw : f.switches()) EXPECT_EQ(sw.tier, 1) << sw.name;
  ASSERT_TRUE(f.FindNic("tp-h3/eth0").has_value());
  EXPECT_EQ(f.nics()[*f.FindNic("tp-h3/eth0")].leaf, *f.FindSwitch("tp-sw2"));
  // Both sides of every cable were reported: still one link per cable.
  EXPECT_EQ(f.links().size(), 4u);
  EXPECT_TRUE(f.warnings().empty()) << absl::StrJoin(f.warnings(), "\n");
}

TEST(Lldp, WrongShapeNamesTheField) {
  absl::StatusOr<LldpView> view = ParseLldpNeighbors(
      R"({"lldp":[{"interface":[{"name":"eth0","chassis":[]}]}]})", "bad.json", "h1");
  ASSERT_FALSE(view.ok());
  EXPECT_THAT(view.status().message(), HasSubstr("bad.json: field lldp.interface[0]"));
}

TEST(Lldp, TextThatIsNotJsonIsAnError) {
  absl::StatusOr<LldpView> view = ParseLldpNeighbors("Interface: eth0", "plain.txt", "h1");
  ASSERT_FALSE(view.ok());
  EXPECT_THAT(view.status().message(), HasSubstr("plain.txt: not lldpcli JSON output"));
}

TEST(Lldp, NeighborsOfNobodyAreAnError) {
  absl::StatusOr<LldpView> view = ParseLldpNeighbors(R"({"lldp":[{}]})", "anon.json", "");
  ASSERT_FALSE(view.ok());
  EXPECT_THAT(view.status().message(), HasSubstr("cannot tell whose neighbors"));
}

TEST(Lldp, HostWithoutNeighborsGivesNoLinks) {
  absl::StatusOr<LldpView> view = ParseLldpNeighbors(R"({"lldp":[{}]})", "quiet.json", "h1");
  ASSERT_TRUE(view.ok()) << view.status();
  EXPECT_TRUE(LldpViewToFacts(*view).links.empty());
}

TEST(Lldp, FuzzerFoundInputImportsWithoutTouchingFreedMemory) {
  // lldp_fuzzer found a use-after-free here (a map rehashed under a live iterator);
  // ASan builds (TOPOPLACE_SANITIZE) catch a regression.
  const std::string path =
      std::string(TP_DISCOVERY_FIXTURES) + "/fuzz-regressions/lldp-rehash-use-after-free.json";
  absl::StatusOr<std::string> text = ReadWholeFile(path);
  ASSERT_TRUE(text.ok()) << text.status();
  absl::StatusOr<LldpView> view = ParseLldpNeighbors(*text, path, "local");
  if (!view.ok()) return;  // rejecting it is fine too; crashing is not
  std::vector<FabricFacts> facts;
  facts.push_back(LldpViewToFacts(*view));
  EXPECT_TRUE(BuildFabricFromFacts(std::move(facts), "fuzz").status().code() !=
              absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace topoplace::discovery
