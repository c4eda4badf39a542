// GPUs, RDMA NICs and their PCIe-root pairing from DRA ResourceSlices
// (topology/discovery/k8s_resource_slices.h), on the slices NVIDIA's GPU driver and DraNet
// published for one AWS p5 node; fabric import merges them into hosts other sources found.
#include "topology/discovery/k8s_resource_slices.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "topology/discovery/fabric_import.h"
#include "topology/discovery/read_file.h"

namespace topoplace::discovery {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::string kFixtures = std::string(TP_DISCOVERY_FIXTURES) + "/k8s-resource-slices/";
constexpr char kNode[] = "ip-192-168-153-160.ec2.internal";

// Both recorded slices' items in one ResourceSliceList, as the apiserver lists them.
std::string BothSlices() {
  std::string items;
  for (const char* file : {"aws-p5-resourceslice-gpu.json", "aws-p5-resourceslice-dranet.json"}) {
    const std::string text = *ReadWholeFile(kFixtures + file);
    const size_t open = text.find('[', text.find("\"items\""));
    const size_t close = text.rfind(']');
    if (!items.empty()) items += ",";
    items += text.substr(open + 1, close - open - 1);
  }
  return "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [" + items + "]}";
}

std::vector<std::string> GpuNics(const HostFact& host) {
  std::vector<std::string> out;
  for (const GpuFact& g : host.gpus) out.push_back(g.nic);
  return out;
}

TEST(K8sResourceSlices, GpusPairWithTheRdmaNicOfTheirPcieRoot) {
  absl::StatusOr<FabricFacts> facts = ParseK8sResourceSlices(BothSlices(), "slices.json");
  ASSERT_TRUE(facts.ok()) << facts.status();
  ASSERT_EQ(facts->hosts.size(), 1u);
  const HostFact& host = facts->hosts[0];
  EXPECT_EQ(host.name, kNode);
  // RDMA NICs only (the three Ethernet interfaces are not), in PCI order.
  std::vector<std::string> nics;
  for (const NicFact& n : host.nics) nics.push_back(n.name);
  EXPECT_THAT(nics, ElementsAre("rdmap16s27", "rdmap32s27", "rdmap144s27", "rdmap160s27"));
  EXPECT_THAT(GpuNics(host),
              ElementsAre("rdmap16s27", "rdmap16s27", "rdmap32s27", "rdmap32s27", "rdmap144s27",
                          "rdmap144s27", "rdmap160s27", "rdmap160s27"));
  EXPECT_EQ(host.gpus[7].index, 7);
}

TEST(K8sResourceSlices, GpusAloneKnowNoNicAndOtherDevicesAreSkipped) {
  const std::string text = R"({"items": [
    {"spec": {"driver": "gpu.nvidia.com", "nodeName": "n1", "pool": {"name": "n1"}, "devices": [
      {"name": "gpu-1", "attributes": {"type": {"string": "gpu"},
        "pcieBusID": {"string": "0000:20:00.0"}}},
      {"name": "gpu-0", "attributes": {"type": {"string": "gpu"},
        "resource.kubernetes.io/pciBusID": {"string": "0000:10:00.0"},
        "resource.kubernetes.io/pcieRoot": {"string": "pci0000:10"}}},
      {"name": "gpu-0-mig-1g10gb-19-0", "attributes": {"type": {"string": "mig"}}}]}},
    {"spec": {"driver": "dra.net", "nodeName": "n1", "pool": {"name": "n1"}, "devices": [
      {"name": "pci-0000-30-00-0", "attributes": {"dra.net/rdma": {"bool": true},
        "dra.net/rdmaDevice": {"string": "mlx5_0"},
        "resource.kubernetes.io/pcieRoot": {"string": "pci0000:30"}}}]}},
    {"spec": {"driver": "other.example.com", "nodeName": "n1", "devices": [{"name": "x"}]}},
    {"spec": {"driver": "gpu.nvidia.com", "pool": {"name": "shared"}, "devices": []}}]})";
  absl::StatusOr<FabricFacts> facts = ParseK8sResourceSlices(text, "t.json");
  ASSERT_TRUE(facts.ok()) << facts.status();
  ASSERT_EQ(facts->hosts.size(), 1u);
  // Two full GPUs in bus order (gpu-0 first), neither under the NIC's root.
  EXPECT_THAT(GpuNics(facts->hosts[0]), ElementsAre("", ""));
  ASSERT_EQ(facts->hosts[0].nics.size(), 1u);
}

TEST(K8sResourceSlices, ImportFillsInTheGpusOfAHostAnotherSourceFound) {
  const std::string dir = ::testing::TempDir();
  const std::string spec = dir + "/p5-spec.json", slices = dir + "/slices.json";
  {
    FILE* f = fopen(spec.c_str(), "w");
    fprintf(f, R"({"format": "topoplace.fabric/v1", "name": "p5", "version": 1,
 "hosts": [{"name": "%s"}],
 "nics": [{"host": "%s", "name": "rdmap16s27", "speed_gbps": 400}],
 "gpus": [], "switches": [{"name": "leaf-0", "tier": 1}],
 "links": [{"a": "%s/rdmap16s27", "b": "leaf-0", "speed_gbps": 400, "lanes": 4,
            "count": 1, "state": "up"}]})",
            kNode, kNode, kNode);
    fclose(f);
    f = fopen(slices.c_str(), "w");
    fputs(BothSlices().c_str(), f);
    fclose(f);
  }
  ImportSources sources;
  sources.spec = spec;
  sources.k8s_resource_slices = {slices};
  absl::StatusOr<FabricPtr> fabric = ImportFabric(sources, "p5");
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  ASSERT_EQ((*fabric)->gpus().size(), 8u);
  const Fabric& f = **fabric;
  EXPECT_EQ(f.nics()[f.gpus()[0].nic].name, "rdmap16s27");
  EXPECT_EQ(f.nics()[f.gpus()[5].nic].name, "rdmap144s27");
}

TEST(K8sResourceSlices, BadInputNamesTheOriginTheItemAndTheField) {
  struct Case {
    std::string text, why;
  };
  for (const Case& c : {
           Case{"nope", "not JSON"},
           Case{R"({"kind": "List"})", "expected a ResourceSliceList"},
           Case{R"({"items": [{"spec": {}}]})", "t.json: items[0]: spec.driver missing"},
           Case{R"({"items": [{"spec": {"driver": "dra.net", "nodeName": 3}}]})",
                "items[0].spec.nodeName"},
           Case{R"({"items": [{"spec": {"driver": "dra.net", "nodeName": "n", "devices": {}}}]})",
                "items[0].spec.devices: expected an array"},
           Case{R"({"items": [{"spec": {"driver": "dra.net", "nodeName": "n", "devices": [
                {"name": "pci-1", "attributes": {"dra.net/rdma": {"string": "yes"}}}]}}]})",
                "items[0].spec.devices[0] (pci-1).attributes.dra.net/rdma: expected {\"bool\""},
           Case{R"({"items": [{"spec": {"driver": "gpu.nvidia.com", "nodeName": "n", "devices": [
                {"name": "gpu-0", "attributes": {"resource.kubernetes.io/pcieRoot": {"int": 1}}}]}}]})",
                "(gpu-0).attributes.resource.kubernetes.io/pcieRoot: expected {\"string\""},
           Case{std::string(300, '['), "nested deeper"},
       }) {
    absl::StatusOr<FabricFacts> facts = ParseK8sResourceSlices(c.text, "t.json");
    ASSERT_FALSE(facts.ok()) << c.text;
    EXPECT_EQ(facts.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(facts.status().message(), HasSubstr(c.why)) << c.text;
  }
}

}  // namespace
}  // namespace topoplace::discovery
