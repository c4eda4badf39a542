#include "telemetry/counters/node_exporter_counters.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "base/input_file.h"

namespace topoplace::telemetry {
namespace {

using ::testing::HasSubstr;

std::string Fixture(const std::string& name) {
  return *ReadInputFile(std::string(TOPOPLACE_COUNTER_FIXTURES) + "/" + name, 1 << 20);
}

// node_exporter's own expected output (its e2e test) for the mlx4_0 and i40iw0 of its
// recorded sysfs: mlx4_0 port 1 has 5 transmit discards, everything else is 0.
TEST(NodeExporterCounters, ReadsTheCollectorsRecordedOutputAsSysfsCounters) {
  absl::StatusOr<std::vector<PortCounterSet>> ports =
      ParseNodeExporterInfiniband(Fixture("node_exporter/e2e-output-infiniband.prom"), "e2e");
  ASSERT_TRUE(ports.ok()) << ports.status();
  // i40iw0 has no PMA counters (only state and rate): it has no entry.
  ASSERT_EQ(ports->size(), 2u);
  const PortCounterSet& p1 = (*ports)[0];
  EXPECT_EQ(p1.device, "mlx4_0");
  EXPECT_EQ(p1.port, 1);
  EXPECT_EQ(p1.values.at("port_xmit_discards"), 5u);
  EXPECT_EQ(p1.values.at("link_downed"), 0u);
  EXPECT_EQ(p1.values.at("port_rcv_errors"), 0u);
  const PortTotals t = Summarise(p1);
  EXPECT_EQ(t.tx_discards, 5u);
  EXPECT_EQ(t.rx_errors, 0u);
  EXPECT_EQ(t.link_downs, 0u);
  EXPECT_EQ((*ports)[1].port, 2);
  EXPECT_FALSE((*ports)[1].values.contains("port_xmit_discards"));
}

TEST(NodeExporterCounters, FloatsAreReadExactlyAndTimestampsAllowed) {
  absl::StatusOr<std::vector<PortCounterSet>> ports = ParseNodeExporterInfiniband(
      "node_infiniband_link_downed_total{device=\"mlx5_0\",port=\"1\"} 3e+00 1700000000000\n"
      "node_infiniband_symbol_error_total{port=\"1\",device=\"mlx5_0\"} 9.007199254740992e+15\n"
      "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 12.5\n",
      "t");
  ASSERT_TRUE(ports.ok()) << ports.status();
  ASSERT_EQ(ports->size(), 1u);
  EXPECT_EQ((*ports)[0].values.at("link_downed"), 3u);
  EXPECT_EQ((*ports)[0].values.at("symbol_error"), 9007199254740992u);
}

TEST(NodeExporterCounters, BadCounterLinesNameTheSourceLineAndWhy) {
  struct Case {
    std::string text, why;
  };
  for (const Case& c : {
           Case{"node_infiniband_link_downed_total 3\n", "expected {device"},
           Case{"node_infiniband_link_downed_total{device=\"mlx5_0\"} 3\n", "device and a port"},
           Case{"node_infiniband_link_downed_total{device=\"mlx5_0\",port=\"x\"} 3\n", "port 'x'"},
           Case{"node_infiniband_link_downed_total{device=\"mlx5_0\",port=\"1\"} -1\n", "whole"},
           Case{"node_infiniband_link_downed_total{device=\"mlx5_0\",port=\"1\"} 2.5\n", "whole"},
           Case{"node_infiniband_link_downed_total{device=\"mlx5_0\",port=\"1\"} NaN\n", "whole"},
           Case{"node_infiniband_link_downed_total{device=\"mlx5_0\",port=\"1\"}\n", "a value"},
           Case{"node_infiniband_link_downed_total{device=\"mlx5_0,port=\"1\"} 1\n", "label"},
           Case{"node_infiniband_link_downed_total{device=\"mlx5_0\",port=\"1\" 1\n",
                "unterminated"},
       }) {
    absl::StatusOr<std::vector<PortCounterSet>> ports =
        ParseNodeExporterInfiniband("# HELP x\n" + c.text, "h0:9100");
    ASSERT_FALSE(ports.ok()) << c.text;
    EXPECT_EQ(ports.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(ports.status().message(), HasSubstr("h0:9100:2: node_infiniband_link_downed_total"))
        << c.text;
    EXPECT_THAT(ports.status().message(), HasSubstr(c.why)) << c.text;
  }
}

}  // namespace
}  // namespace topoplace::telemetry
