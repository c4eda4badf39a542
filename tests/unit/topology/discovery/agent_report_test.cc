#include "topology/discovery/agent_report.h"

#include <string>

#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace topoplace::discovery {
namespace {

using ::testing::HasSubstr;

const std::string kReports = std::string(TP_DISCOVERY_FIXTURES) + "/agent-reports/";

TEST(AgentReport, RecordedReportRoundTripsThroughJson) {
  absl::StatusOr<AgentReport> report = LoadAgentReportFile(kReports + "gpu-host.json");
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->host, "g1");
  EXPECT_EQ(report->nvlink_domain, "nvl72-rack3");
  ASSERT_EQ(report->gpus.size(), 2u);
  EXPECT_EQ(report->gpus[0].nic, "mlx5_0");
  absl::StatusOr<AgentReport> again = ParseAgentReport(AgentReportToJson(*report), "again");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(AgentReportToJson(*again), AgentReportToJson(*report));
}

TEST(AgentReport, DownNicIsKeptAndReported) {
  absl::StatusOr<AgentReport> report = LoadAgentReportFile(kReports + "gpu-host.json");
  ASSERT_TRUE(report.ok()) << report.status();
  const FabricFacts facts = AgentReportToFacts(*report, "g1.json");
  ASSERT_EQ(facts.hosts.size(), 1u);
  EXPECT_EQ(facts.hosts[0].nics.size(), 2u);
  EXPECT_EQ(facts.hosts[0].gpus[0].nic, "mlx5_0");
  const std::string warnings = absl::StrJoin(facts.warnings, "\n");
  EXPECT_THAT(warnings, HasSubstr("NICs are down, no LLDP neighbor (g1.json): g1/eth2 (down)"));
  // An InfiniBand port speaks no LLDP: its silence is not a warning.
  EXPECT_THAT(warnings, ::testing::Not(HasSubstr("g1/mlx5_0")));
}

TEST(AgentReport, FieldOfTheWrongTypeIsNamed) {
  absl::StatusOr<AgentReport> report = ParseAgentReport(
      R"({"format":"topoplace.agent-report/v1","host":"h","nics":[{"name":"e","speed_gbps":"fast"}]})",
      "r.json");
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(report.status().message(),
              HasSubstr("r.json: field nics[0].speed_gbps: expected a number"));
}

TEST(AgentReport, WrongFormatTagIsRejected) {
  absl::StatusOr<AgentReport> report = ParseAgentReport(R"({"format":"v0","host":"h"})", "r.json");
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(report.status().message(), HasSubstr("field format: expected"));
}

TEST(AgentReport, InvalidJsonIsAnError) {
  EXPECT_FALSE(ParseAgentReport("{", "r.json").ok());
  EXPECT_FALSE(ParseAgentReport("[]", "r.json").ok());
}

}  // namespace
}  // namespace topoplace::discovery
