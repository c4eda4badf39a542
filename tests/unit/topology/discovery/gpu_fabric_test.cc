// The NVLink domain a host reports, from recorded `nvidia-smi -q` text (tests/fixtures/
// discovery/nvidia-smi/README.md says where the format and values come from).
#include "topology/discovery/gpu_fabric.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "topology/discovery/agent_report.h"
#include "topology/discovery/fabric_import.h"
#include "topology/discovery/host_discovery.h"
#include "topology/discovery/read_file.h"

namespace topoplace::discovery {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Recorded(const std::string& name) {
  absl::StatusOr<std::string> text =
      ReadWholeFile(std::string(TP_DISCOVERY_FIXTURES) + "/nvidia-smi/" + name);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

GpuFabricDomain DomainOf(const std::string& name) {
  absl::StatusOr<std::vector<GpuFabricInfo>> gpus = ParseNvidiaSmiFabric(Recorded(name), name);
  EXPECT_TRUE(gpus.ok()) << gpus.status();
  return gpus.ok() ? NvlinkDomainOf(*gpus) : GpuFabricDomain{};
}

TEST(GpuFabric, ATrayWhoseGpusRegisteredIsInItsCliquesDomain) {
  absl::StatusOr<std::vector<GpuFabricInfo>> gpus =
      ParseNvidiaSmiFabric(Recorded("gb200-tray.txt"), "gb200-tray.txt");
  ASSERT_TRUE(gpus.ok()) << gpus.status();
  ASSERT_EQ(gpus->size(), 4u);
  EXPECT_EQ((*gpus)[0].gpu, "00000008:01:00.0");
  EXPECT_EQ((*gpus)[0].state, "Completed");
  EXPECT_EQ((*gpus)[0].clique_id, "2");
  EXPECT_EQ((*gpus)[0].product, "NVIDIA GB200");
  const GpuFabricDomain d = NvlinkDomainOf(*gpus);
  EXPECT_EQ(d.domain, "dc6e40c4-d722-4357-9ba6-5291dd461278.2");
  EXPECT_TRUE(d.warnings.empty());
}

TEST(GpuFabric, GpusStillRegisteringOrInErrorAreLeftOutWithAWarningEach) {
  const GpuFabricDomain d = DomainOf("gb200-tray-one-in-progress.txt");
  EXPECT_EQ(d.domain, "dc6e40c4-d722-4357-9ba6-5291dd461278.2");
  ASSERT_EQ(d.warnings.size(), 2u);
  EXPECT_THAT(d.warnings[0], HasSubstr("Insufficient Resources"));
  EXPECT_THAT(d.warnings[1], HasSubstr("In Progress"));
}

TEST(GpuFabric, GpusOfDifferentCliquesGiveNoDomain) {
  const GpuFabricDomain d = DomainOf("gb200-tray-two-cliques.txt");
  EXPECT_EQ(d.domain, "");
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_THAT(d.warnings[0], HasSubstr("2 NVLink domains"));
}

TEST(GpuFabric, AHostWithoutNvlinkSwitchesIsItsOwnDomainWithoutWarning) {
  const GpuFabricDomain d = DomainOf("a40-no-nvswitch.txt");
  EXPECT_EQ(d.domain, "");
  EXPECT_TRUE(d.warnings.empty());
  // No GPU at all (nvidia-smi absent or failing): the same.
  EXPECT_EQ(NvlinkDomainOf({}).domain, "");
}

TEST(GpuFabric, AFabricSectionBeforeAnyGpuIsAnErrorNamingTheLine) {
  absl::StatusOr<std::vector<GpuFabricInfo>> gpus =
      ParseNvidiaSmiFabric(Recorded("fabric-before-gpu.txt"), "fabric-before-gpu.txt");
  ASSERT_FALSE(gpus.ok());
  EXPECT_EQ(gpus.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(gpus.status().message()), HasSubstr("fabric-before-gpu.txt:9:"));
}

// The agent's host discovery takes the domain from the report when no domain file says
// otherwise, and passes the per-GPU warnings on.
TEST(GpuFabric, HostDiscoveryReportsTheCliqueDomain) {
  SysfsEnvPtr env = NewDiskSysfsEnv(std::string(TP_DISCOVERY_FIXTURES) + "/sysfs/gpu-node");
  HostDiscoveryOptions options;
  options.nvidia_smi_q = Recorded("gb200-tray-one-in-progress.txt");
  absl::StatusOr<AgentReport> report = DiscoverHost(*env, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->nvlink_domain, "dc6e40c4-d722-4357-9ba6-5291dd461278.2");
  EXPECT_THAT(report->warnings, ::testing::Contains(HasSubstr("In Progress")));
  options.nvidia_smi_q = "    Fabric\n";  // garbage: a warning, never a failed discovery
  report = DiscoverHost(*env, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->nvlink_domain, "");
  EXPECT_THAT(report->warnings, ::testing::Contains(HasSubstr("own NVLink domain")));
}

// The product name travels from `nvidia-smi -q` through the agent's report into the
// imported fabric's host, where the step-time model finds its constants.
TEST(GpuFabric, TheGpuModelGoesFromNvidiaSmiThroughTheReportIntoTheFabric) {
  SysfsEnvPtr env = NewDiskSysfsEnv(std::string(TP_DISCOVERY_FIXTURES) + "/sysfs/gpu-node");
  HostDiscoveryOptions options;
  options.nvidia_smi_q = Recorded("gb200-tray.txt");
  absl::StatusOr<AgentReport> report = DiscoverHost(*env, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->gpu_model, "NVIDIA GB200");
  report->host = "tray-1";  // the recorded tree has no hostname
  const std::string json = AgentReportToJson(*report);
  absl::StatusOr<AgentReport> parsed = ParseAgentReport(json, "report");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->gpu_model, "NVIDIA GB200");
  absl::StatusOr<FabricPtr> fabric =
      ImportFabric({.agent_report_texts = {{"agent", json}}}, "one-tray");
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  ASSERT_EQ((*fabric)->hosts().size(), 1u);
  EXPECT_EQ((*fabric)->hosts()[0].gpu_model, "NVIDIA GB200");
  // Without nvidia-smi the report names no model, and the JSON carries no field for it.
  options.nvidia_smi_q.clear();
  report = DiscoverHost(*env, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->gpu_model, "");
  EXPECT_THAT(AgentReportToJson(*report), ::testing::Not(HasSubstr("gpu_model")));
}

}  // namespace
}  // namespace topoplace::discovery
