// NVLink domains from Kubernetes Node labels (topology/discovery/k8s_nodes.h): each
// labelled node's nvidia.com/gpu.clique is its NVLink domain; fabric import merges them
// after what hosts report, so a label fills in a domain no source knows and never merges
// two racks another source keeps apart; bad input names the file, the item and the label.
#include "topology/discovery/k8s_nodes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "topology/discovery/fabric_import.h"

namespace topoplace::discovery {
namespace {

using ::testing::HasSubstr;

const std::string kFixtures = std::string(TP_DISCOVERY_FIXTURES) + "/k8s-nodes/";

TEST(K8sNodes, EveryLabelledNodeGetsItsCliqueAsNvlinkDomainAndOthersNone) {
  absl::StatusOr<FabricFacts> facts = LoadK8sNodeList(kFixtures + "gb200-two-racks.json");
  ASSERT_TRUE(facts.ok()) << facts.status();
  ASSERT_EQ(facts->hosts.size(), 36u);  // the CPU node has no label: no fact
  std::set<std::string> domains;
  for (const HostFact& h : facts->hosts) domains.insert(h.nvlink_domain);
  EXPECT_EQ(domains, (std::set<std::string>{"dc6e40c4-d722-4357-9ba6-5291dd461278.2",
                                            "5b1f0c8e-3a29-4d6b-9f51-0c7a2e8b4d13.2"}));
  EXPECT_EQ(facts->hosts[0].name, "b00-n000");
  EXPECT_THAT(facts->hosts[0].origin, HasSubstr("gb200-two-racks.json items[0]"));
}

// A spec without NVLink domains (every host alone): the labels make the two racks domains.
TEST(K8sNodes, LabelsFillInTheDomainsNoOtherSourceKnows) {
  ImportSources sources;
  // superpod-4su's block 0 is b00-n000..b00-n031: rack 0's 18 labels all land, rack 1's 14
  // of 18 (b00-n032..b00-n035 are nowhere else, so their labels are ignored and reported).
  sources.spec = "preset:superpod-4su";
  sources.k8s_nodes = {kFixtures + "gb200-two-racks.json"};
  absl::StatusOr<FabricPtr> fabric = ImportFabric(sources, "labelled");
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  const Fabric& f = **fabric;
  std::multiset<size_t> sizes;
  for (const std::vector<HostId>& d : f.nvlink_domains()) {
    if (d.size() > 1) sizes.insert(d.size());
  }
  EXPECT_EQ(sizes, (std::multiset<size_t>{14, 18}));
  EXPECT_EQ(f.hosts().size(), 128u) << "no host only the labels name";
  EXPECT_EQ(f.hosts()[static_cast<size_t>(*f.FindHost("b00-n000"))].nvlink_domain,
            "dc6e40c4-d722-4357-9ba6-5291dd461278.2");
  std::string warnings;
  for (const std::string& w : f.warnings()) warnings += w + "\n";
  EXPECT_THAT(warnings, HasSubstr("4 labelled node(s) no other source knows, ignored: "
                                  "b00-n032, b00-n033, b00-n034, b00-n035"));
}

TEST(K8sNodes, OneLabelOnTwoRacksNeverMergesThemAndIsReported) {
  ImportSources sources;
  sources.spec = "preset:gb200-nvl72";  // the racks as the fabric has them
  sources.k8s_nodes = {kFixtures + "gb200-two-racks-one-label.json"};
  absl::StatusOr<FabricPtr> fabric = ImportFabric(sources, "mislabelled");
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  const Fabric& f = **fabric;
  EXPECT_NE(f.hosts()[static_cast<size_t>(*f.FindHost("b00-n000"))].nvlink_domain,
            f.hosts()[static_cast<size_t>(*f.FindHost("b00-n018"))].nvlink_domain);
  std::string warnings;
  for (const std::string& w : f.warnings()) warnings += w + "\n";
  EXPECT_THAT(warnings, HasSubstr("host b00-n018: NVLink domain 'nvl-b00-d1'"));
}

TEST(K8sNodes, BadInputNamesTheFileTheItemAndWhatWasExpected) {
  auto error = [](const char* text) {
    absl::StatusOr<FabricFacts> f = ParseK8sNodeList(text, "nodes.json");
    EXPECT_FALSE(f.ok()) << text;
    return f.ok() ? std::string() : std::string(f.status().message());
  };
  EXPECT_THAT(error("{"), HasSubstr("nodes.json: not JSON"));
  EXPECT_THAT(error(R"({"kind": "Node"})"), HasSubstr("nodes.json: expected a NodeList"));
  EXPECT_THAT(error(R"({"items": [{"metadata": {}}]})"),
              HasSubstr("nodes.json: items[0]: metadata.name missing"));
  EXPECT_THAT(error(R"({"items": [{"metadata": {"name": "n1", "labels": []}}]})"),
              HasSubstr("node n1: labels is not an object"));
  EXPECT_THAT(
      error(
          R"({"items": [{"metadata": {"name": "n1", "labels": {"nvidia.com/gpu.clique": "rack7"}}}]})"),
      HasSubstr(
          "node n1: label nvidia.com/gpu.clique=\"rack7\", expected <ClusterUUID>.<CliqueId>"));
  EXPECT_TRUE(ParseK8sNodeList(R"({"items": []})", "empty.json").ok());
}

}  // namespace
}  // namespace topoplace::discovery
