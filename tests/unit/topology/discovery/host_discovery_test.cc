#include "topology/discovery/host_discovery.h"

#include <string>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "topology/discovery/verbs_devices.h"

namespace topoplace::discovery {
namespace {

const std::string kGpuNode = std::string(TP_DISCOVERY_FIXTURES) + "/sysfs/gpu-node";

AgentReport Discover(const HostDiscoveryOptions& options = {}) {
  SysfsEnvPtr env = NewDiskSysfsEnv(kGpuNode);
  absl::StatusOr<AgentReport> report = DiscoverHost(*env, options);
  EXPECT_TRUE(report.ok()) << report.status();
  return report.ok() ? *report : AgentReport{};
}

const AgentNic* FindNic(const AgentReport& report, const std::string& name) {
  for (const AgentNic& nic : report.nics) {
    if (nic.name == name) return &nic;
  }
  return nullptr;
}

TEST(HostDiscovery, RoceGidTableIsRecordedWithTypeAndNetdev) {
  SysfsEnvPtr env = NewDiskSysfsEnv(std::string(TP_DISCOVERY_FIXTURES) + "/sysfs/roce-node");
  absl::StatusOr<AgentReport> report = DiscoverHost(*env, {});
  ASSERT_TRUE(report.ok()) << report.status();
  const AgentNic* roce = FindNic(*report, "ens1f0np0");  // named after its netdev
  ASSERT_NE(roce, nullptr);
  EXPECT_EQ(roce->rdma_device, "mlx5_0");
  // Rows 0-3 and 10 are used (in index order, not name order); the all-zero row 4 is not.
  ASSERT_EQ(roce->gids.size(), 5u);
  const std::vector<std::tuple<int32_t, std::string, std::string>> expected = {
      {0, "fe80:0000:0000:0000:0a00:00ff:fe00:0001", "RoCE v1"},
      {1, "fe80:0000:0000:0000:0a00:00ff:fe00:0001", "RoCE v2"},
      {2, "0000:0000:0000:0000:0000:ffff:0a00:0001", "RoCE v1"},
      {3, "0000:0000:0000:0000:0000:ffff:0a00:0001", "RoCE v2"},
      {10, "0000:0000:0000:0000:0000:ffff:0a00:0101", "RoCE v2"},
  };
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(roce->gids[i].index, std::get<0>(expected[i])) << i;
    EXPECT_EQ(roce->gids[i].gid, std::get<1>(expected[i])) << i;
    EXPECT_EQ(roce->gids[i].type, std::get<2>(expected[i])) << i;
    EXPECT_EQ(roce->gids[i].netdev, "ens1f0np0") << i;
  }
  // On an InfiniBand port the kernel's "IB/RoCE v1" means IB; there is no netdev.
  const AgentNic* ib = FindNic(*report, "mlx5_1");
  ASSERT_NE(ib, nullptr);
  ASSERT_EQ(ib->gids.size(), 1u);
  EXPECT_EQ(ib->gids[0].type, "IB");
  EXPECT_EQ(ib->gids[0].netdev, "");
  // The GIDs survive the agent report's JSON.
  report->host = "r1";  // the agent's part
  absl::StatusOr<AgentReport> again = ParseAgentReport(AgentReportToJson(*report), "again");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(AgentReportToJson(*again), AgentReportToJson(*report));
  EXPECT_THAT(AgentReportToJson(*report), ::testing::HasSubstr("\"type\": \"RoCE v2\""));
}

TEST(HostDiscovery, RdmaDevicesCarryTheirNodeSystemImageAndPortGuids) {
  SysfsEnvPtr env = NewDiskSysfsEnv(std::string(TP_DISCOVERY_FIXTURES) + "/sysfs/roce-node");
  absl::StatusOr<AgentReport> report = DiscoverHost(*env, {});
  ASSERT_TRUE(report.ok()) << report.status();
  const AgentNic* ib = FindNic(*report, "mlx5_1");
  ASSERT_NE(ib, nullptr);
  EXPECT_EQ(ib->node_guid, 0xb83fd20300a1b2c4ULL);
  EXPECT_EQ(ib->sys_image_guid, 0xb83fd20300a1b2c4ULL);
  EXPECT_EQ(ib->port_guid, 0xb83fd20300a1b2c4ULL);  // low half of IB GID 0
  const AgentNic* roce = FindNic(*report, "ens1f0np0");
  ASSERT_NE(roce, nullptr);
  EXPECT_EQ(roce->node_guid, 0xb83fd20300a1b2c0ULL);
  EXPECT_EQ(roce->port_guid, 0u);  // RoCE GIDs are no port GUIDs
  // The GUIDs survive the report's JSON, in the form sysfs prints them.
  report->host = "r1";
  const std::string json = AgentReportToJson(*report);
  EXPECT_THAT(json, ::testing::HasSubstr("\"node_guid\": \"b83f:d203:00a1:b2c4\""));
  absl::StatusOr<AgentReport> again = ParseAgentReport(json, "again");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(AgentReportToJson(*again), json);
  // And they are what an ibnetdiscover import joins on.
  absl::flat_hash_map<uint64_t, ReportedHca> hcas;
  AddReportedHcas(*again, hcas);
  ASSERT_TRUE(hcas.contains(0xb83fd20300a1b2c4ULL));
  EXPECT_EQ(hcas[0xb83fd20300a1b2c4ULL].host, "r1");
  EXPECT_EQ(hcas[0xb83fd20300a1b2c4ULL].device, "mlx5_1");
}

TEST(HostDiscovery, MalformedGuidInAReportIsAnErrorNamingTheField) {
  const std::string json = R"({"format": "topoplace.agent-report/v1", "host": "h1",
      "nics": [{"name": "mlx5_0", "node_guid": "b83f:d203:00a1"}]})";
  absl::StatusOr<AgentReport> report = ParseAgentReport(json, "r.json");
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(report.status().message(), ::testing::HasSubstr("r.json: field nics[0].node_guid"));
  EXPECT_EQ(ParseGuid("0x0c42a10300045678"), 0x0c42a10300045678ULL);
  EXPECT_EQ(ParseGuid("0c42:a103:0004:5678"), 0x0c42a10300045678ULL);
  EXPECT_FALSE(ParseGuid("0c42:a103:0004:567g").has_value());
  EXPECT_FALSE(ParseGuid("0x").has_value());
}

TEST(HostDiscovery, GidOfAnUnknownTypeInAReportIsAnErrorNamingTheField) {
  const std::string json = R"({"format": "topoplace.agent-report/v1", "host": "h",
      "nics": [{"name": "eth0", "gids": [{"index": 0, "gid": "fe80::1", "type": "RoCE v3"}]}]})";
  absl::StatusOr<AgentReport> report = ParseAgentReport(json, "r.json");
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(std::string(report.status().message()), ::testing::HasSubstr("nics[0].gids[0]"));
  EXPECT_THAT(std::string(report.status().message()), ::testing::HasSubstr("type"));
}

TEST(HostDiscovery, InfinibandHcasComeFromSysfsWithRateStateAndNuma) {
  const AgentReport report = Discover();
  const AgentNic* hca = FindNic(report, "mlx5_1");
  ASSERT_NE(hca, nullptr);
  EXPECT_EQ(hca->speed_gbps, 400);
  EXPECT_EQ(hca->state, "active");
  EXPECT_EQ(hca->link_layer, "InfiniBand");
  EXPECT_EQ(hca->pci, "0000:84:00.0");
  EXPECT_EQ(hca->numa, 1);
}

TEST(HostDiscovery, PhysicalNetdevIsReportedLoopbackAndVirtualOnesAreNot) {
  const AgentReport report = Discover();
  const AgentNic* eth = FindNic(report, "eth0");
  ASSERT_NE(eth, nullptr);
  EXPECT_EQ(eth->speed_gbps, 100);
  EXPECT_EQ(eth->state, "up");
  EXPECT_EQ(FindNic(report, "lo"), nullptr);
  EXPECT_EQ(FindNic(report, "veth0"), nullptr);
}

TEST(HostDiscovery, VirtualNetdevMatchingThePatternIsReported) {
  const AgentReport report = Discover({.netdev_pattern = "veth*"});
  const AgentNic* veth = FindNic(report, "veth0");
  ASSERT_NE(veth, nullptr);
  EXPECT_EQ(veth->state, "down");
}

TEST(HostDiscovery, GpuIsAffineToTheHcaUnderItsPcieSwitch) {
  const AgentReport report = Discover();
  ASSERT_EQ(report.gpus.size(), 2u);
  EXPECT_EQ(report.gpus[0].pci, "0000:03:00.0");
  EXPECT_EQ(report.gpus[0].nic, "mlx5_0");
  EXPECT_EQ(report.gpus[0].numa, 0);
  EXPECT_EQ(report.gpus[1].nic, "mlx5_1");
  EXPECT_EQ(report.gpus[1].numa, 1);
}

TEST(HostDiscovery, SharingOnlyARootPortIsNotSharingAPcieSwitch) {
  EXPECT_EQ(SharedPciDepth("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/a",
                           "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/b"),
            2);
  EXPECT_EQ(SharedPciDepth("sys/devices/pci0000:00/0000:00:01.0/0000:03:00.0",
                           "sys/devices/pci0000:00/0000:00:01.0/0000:04:00.0"),
            1);
  EXPECT_EQ(SharedPciDepth("sys/devices/pci0000:00/0000:00:01.0/x",
                           "sys/devices/pci0000:80/0000:00:01.0/y"),
            0);
}

TEST(HostDiscovery, NvlinkDomainComesFromTheOptionalFile) {
  EXPECT_EQ(Discover({.nvlink_domain_file = "etc/topoplace/nvlink-domain"}).nvlink_domain,
            "rack7-nvl72");
  const AgentReport missing = Discover({.nvlink_domain_file = "etc/none"});
  EXPECT_EQ(missing.nvlink_domain, "");
  EXPECT_THAT(missing.warnings, ::testing::Contains(::testing::HasSubstr("not readable")));
}

TEST(HostDiscovery, EmptyRootHasNoDevicesAndIsNotAnError) {
  SysfsEnvPtr env = NewDiskSysfsEnv("/nonexistent-root");
  absl::StatusOr<AgentReport> report = DiscoverHost(*env, {});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->nics.empty());
  EXPECT_TRUE(report->gpus.empty());
}

TEST(VerbsDevices, NoRdmaSubsystemMeansZeroDevicesNotAnError) {
  // On machines without RDMA, ibv_get_device_list returns NULL (errno ENOSYS).
  absl::StatusOr<std::vector<VerbsDevice>> devices = ListVerbsDevices();
  ASSERT_TRUE(devices.ok()) << devices.status();
}

}  // namespace
}  // namespace topoplace::discovery
