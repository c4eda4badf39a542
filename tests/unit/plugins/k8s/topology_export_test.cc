#include "plugins/k8s/topology_export.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "tests/testing/fabrics.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::k8s {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// topograph v1.0.0's keys (NVIDIA/topograph@aab33e18, docs/engines/k8s.md): fabric tiers
// closest to the node first; the keys before v1.0.0 only with the legacy option.
TEST(K8sExport, NodeLabels_CarryBlockPodRailLeavesAndTopographTiers) {
  FabricPtr f = *GenerateClos(testing::TinyClos(/*blocks=*/2, /*nodes=*/2));
  const std::string yaml = RenderNodeLabels(*f);
  EXPECT_EQ(Count(yaml, "kind: Node\n"), 4u);
  EXPECT_THAT(yaml, HasSubstr("  name: b01-n001\n  labels:\n"
                              "    topoplace.io/block: block-01\n"
                              "    topoplace.io/pod: pod-0\n"
                              "    topoplace.io/nvlink-domain: nvl-3\n"
                              "    topoplace.io/rail-0-leaf: leaf-b01-r0\n"
                              "    topoplace.io/rail-1-leaf: leaf-b01-r1\n"
                              "    fabric.topograph.run/tier-0: block-01\n"
                              "    fabric.topograph.run/tier-1: pod-0\n"));
  // One pod, nothing above it: no third tier; no pre-v1.0.0 key unless asked.
  EXPECT_THAT(yaml, Not(HasSubstr("fabric.topograph.run/tier-2")));
  EXPECT_THAT(yaml, Not(HasSubstr("network.topology.nvidia.com")));
  EXPECT_THAT(RenderNodeLabels(*f, {}, {.topograph_legacy_labels = true}),
              HasSubstr("    fabric.topograph.run/tier-1: pod-0\n"
                        "    network.topology.nvidia.com/accelerator: nvl-3\n"
                        "    network.topology.nvidia.com/leaf: block-01\n"
                        "    network.topology.nvidia.com/spine: pod-0\n"));
}

// Kubernetes' Workload API groups nodes by one label's value alone (no parent levels, unlike
// Kueue's Topology), so every key it may name must give each of our domains its own value
// across the whole cluster: nodes share a value exactly when they share the domain.
TEST(K8sExport, WorkloadTopologyKeys_NameEachDomainClusterWide) {
  EXPECT_EQ(WorkloadTopologyKey(sched::MaxTier::kBlock), kBlockLabel);
  EXPECT_EQ(WorkloadTopologyKey(sched::MaxTier::kLeaf), kBlockLabel);
  EXPECT_EQ(WorkloadTopologyKey(sched::MaxTier::kPod), kPodLabel);
  EXPECT_EQ(WorkloadTopologyKey(sched::MaxTier::kCluster), "");
  EXPECT_EQ(WorkloadTopologyKey(sched::MaxTier::kNvlink), kNvlinkDomainLabel);
  for (const char* preset : {"superpod-4su", "gb200-nvl72", "rail-512"}) {
    FabricPtr f = *GeneratePreset(preset);
    const std::string yaml = RenderNodeLabels(*f);
    // key -> value -> the domain ids of the hosts carrying it; and back.
    std::map<std::string, std::map<std::string, std::set<int32_t>>> domains_of_value;
    std::map<std::string, std::map<int32_t, std::set<std::string>>> values_of_domain;
    int32_t host = -1;
    for (absl::string_view line : absl::StrSplit(yaml, '\n')) {
      if (absl::ConsumePrefix(&line, "  name: ")) {
        const std::optional<HostId> found = f->FindHost(line);
        ASSERT_TRUE(found.has_value()) << line;
        host = *found;
        continue;
      }
      if (!absl::ConsumePrefix(&line, "    ")) continue;
      const std::pair<std::string, std::string> kv = absl::StrSplit(line, ": ");
      const Host& h = f->hosts()[host];
      int32_t domain = -1;
      if (kv.first == kBlockLabel) domain = h.block;
      if (kv.first == kPodLabel) domain = h.pod;
      if (kv.first == kNvlinkDomainLabel) domain = h.nvlink_domain_id;
      if (domain < 0) continue;
      domains_of_value[kv.first][kv.second].insert(domain);
      values_of_domain[kv.first][domain].insert(kv.second);
    }
    for (const char* key : {kBlockLabel, kPodLabel, kNvlinkDomainLabel}) {
      ASSERT_FALSE(domains_of_value[key].empty()) << preset << " " << key;
      for (const auto& [value, ids] : domains_of_value[key]) {
        EXPECT_EQ(ids.size(), 1u) << preset << ": " << key << "=" << value;
      }
      for (const auto& [id, values] : values_of_domain[key]) {
        EXPECT_EQ(values.size(), 1u) << preset << ": " << key << " domain " << id;
      }
    }
  }
}

TEST(K8sExport, ThreeTiers_LabelTheCoreIsland) {
  FabricPtr f = *GenerateClos(testing::TinyClos3(/*pods=*/2, /*blocks_per_pod=*/1, /*nodes=*/1));
  EXPECT_EQ(Count(RenderNodeLabels(*f), "fabric.topograph.run/tier-2: core-0\n"), 2u);
  EXPECT_EQ(Count(RenderNodeLabels(*f, {}, {.topograph_legacy_labels = true}),
                  "network.topology.nvidia.com/core: core-0\n"),
            2u);
}

TEST(K8sExport, KueueTopology_LevelsGoFromPodToHost) {
  FabricPtr f = *GenerateClos(testing::TinyClos(2, 2));
  EXPECT_THAT(RenderKueueTopology(*f),
              HasSubstr("kind: Topology\nmetadata:\n  name: tiny\nspec:\n  levels:\n"
                        "  - nodeLabel: topoplace.io/pod\n  - nodeLabel: topoplace.io/block\n"
                        "  - nodeLabel: kubernetes.io/hostname\n"));
}

TEST(K8sExport, KueueTopology_IsV1beta2ByDefaultAndV1beta1OnRequest) {
  FabricPtr f = *GenerateClos(testing::TinyClos(2, 2));
  EXPECT_THAT(RenderKueueTopology(*f), HasSubstr("apiVersion: kueue.x-k8s.io/v1beta2\n"));
  EXPECT_THAT(RenderKueueTopology(*f, KueueApiVersion::kV1beta1),
              HasSubstr("apiVersion: kueue.x-k8s.io/v1beta1\n"));
  EXPECT_EQ(ParseKueueApiVersion("v1beta1").value(), KueueApiVersion::kV1beta1);
  absl::StatusOr<KueueApiVersion> gone = ParseKueueApiVersion("v1alpha1");
  EXPECT_EQ(gone.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(gone.status().message()), HasSubstr("no longer serves v1alpha1"));
}

// On GB200 NVL72 the NVLink domain is a level: every tray carries topograph v1.0.0's domain
// label, and Kueue's and KAI's Topologies list the domain between block and host.
TEST(K8sExport, Nvl72_NvlinkDomainIsALabelAndALevel) {
  FabricPtr f = *GeneratePreset("gb200-nvl72");
  const std::string labels = RenderNodeLabels(*f);
  EXPECT_EQ(Count(labels, "    accelerator.topograph.run/domain: "), 288u);
  EXPECT_THAT(labels, HasSubstr("  name: b00-n018\n"));
  EXPECT_THAT(labels, HasSubstr("    accelerator.topograph.run/domain: nvl-b00-d1\n"));
  const std::string levels =
      "  levels:\n  - nodeLabel: topoplace.io/pod\n  - nodeLabel: topoplace.io/block\n"
      "  - nodeLabel: topoplace.io/nvlink-domain\n  - nodeLabel: kubernetes.io/hostname\n";
  EXPECT_THAT(RenderKueueTopology(*f), HasSubstr(levels));
  EXPECT_THAT(RenderKaiTopology(*f),
              HasSubstr("apiVersion: kai.scheduler/v1alpha1\nkind: Topology\nmetadata:\n"
                        "  name: gb200-nvl72\nspec:\n" +
                        levels));
  // Where each host is its own domain, neither the label nor the level appears.
  FabricPtr rail = *GeneratePreset("superpod-4su");
  EXPECT_THAT(RenderNodeLabels(*rail), Not(HasSubstr("accelerator.topograph.run/domain")));
  EXPECT_THAT(RenderKaiTopology(*rail), Not(HasSubstr("nvlink-domain")));
}

TEST(K8sExport, VolcanoHyperNodes_NestNodesInBlocksInPodsInIslands) {
  FabricPtr f = *GenerateClos(testing::TinyClos3(/*pods=*/2, /*blocks_per_pod=*/2, /*nodes=*/2));
  const std::string yaml = RenderVolcanoHyperNodes(*f);
  EXPECT_EQ(Count(yaml, "kind: HyperNode\n"), 4u + 2u + 1u);  // blocks, pods, one island
  // A block is one label selector, not one member per node.
  EXPECT_THAT(yaml, HasSubstr("  name: block-03\nspec:\n  tier: 1\n  members:\n"
                              "  - type: Node\n    selector:\n      labelMatch:\n"
                              "        matchLabels:\n          topoplace.io/block: block-03\n"
                              "---"));
  EXPECT_THAT(yaml, HasSubstr("  name: pod-1\nspec:\n  tier: 2\n  members:\n"
                              "  - type: HyperNode\n    selector:\n      exactMatch:\n"
                              "        name: block-02\n"));
  EXPECT_THAT(yaml, HasSubstr("  name: core-0\nspec:\n  tier: 3\n"));
}

}  // namespace
}  // namespace topoplace::k8s
