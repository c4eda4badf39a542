#include "telemetry/counters/ufm_counters.h"

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

// The UFM Telemetry message of Mellanox/ufm_sdk_3.0's fluentd plugin tests: six port
// records; switch 0x248a070300ef19a0 has LinkDowned 1 on port 1 and 3 on port 23.
TEST(UfmCounters, ReadsTheRecordedTelemetryMessage) {
  absl::StatusOr<std::vector<UfmPort>> ports =
      ParseUfmTelemetry(Fixture("ufm/small_telemetry.json"), "small_telemetry.json");
  ASSERT_TRUE(ports.ok()) << ports.status();
  ASSERT_EQ(ports->size(), 6u);
  EXPECT_EQ((*ports)[0].node_guid, 0x0c42a103007ab890u);
  EXPECT_EQ((*ports)[0].counters.device, "0x0c42a103007ab890");
  EXPECT_EQ((*ports)[0].counters.port, 1);
  EXPECT_EQ(Summarise((*ports)[0].counters).link_downs, 0u);
  EXPECT_EQ((*ports)[1].node_guid, 0x248a070300ef19a0u);
  EXPECT_EQ(Summarise((*ports)[1].counters).link_downs, 1u);
  EXPECT_EQ((*ports)[2].counters.port, 23);
  EXPECT_EQ(Summarise((*ports)[2].counters).link_downs, 3u);
}

TEST(UfmCounters, GuidMapNamesByPortGuidThenNodeGuid) {
  absl::StatusOr<GuidMap> map = ParseGuidMap(
      "# GUID name\n0x0c42a103007ab890 h0/mlx5_0\n248a070300ef19a0 leaf-b00-r0  # a switch\n",
      "guids.txt");
  ASSERT_TRUE(map.ok()) << map.status();
  UfmPort nic{0x0c42a103007ab890, 0x0c42a103007ab890, {}};
  UfmPort sw{0x248a070300ef19a0, 0x1, {}};
  UfmPort stranger{0x7, 0x8, {}};
  EXPECT_EQ(NameOf(*map, nic), "h0/mlx5_0");
  EXPECT_EQ(NameOf(*map, sw), "leaf-b00-r0");
  EXPECT_EQ(NameOf(*map, stranger), std::nullopt);
}

TEST(UfmCounters, BadInputNamesTheSourceAndTheRecordOrLine) {
  struct Case {
    std::string json, why;
  };
  for (const Case& c : {
           Case{"[1, 2]", "expected a UFM telemetry message"},
           Case{"{\"values\": 3}", "expected a UFM telemetry message"},
           Case{"{\"values\": [", "not JSON"},
           Case{"{\"values\": [{\"port_guid\": \"0x1\", \"port_num\": 1}]}", "values[0].node_guid"},
           Case{"{\"values\": [{\"node_guid\": \"zz\", \"port_guid\": \"0x1\", \"port_num\": 1}]}",
                "values[0].node_guid"},
           Case{"{\"values\": [{\"node_guid\": \"0x1\", \"port_guid\": \"0x1\", \"port_num\": 0}]}",
                "values[0].port_num"},
           Case{"{\"values\": [{\"node_guid\": \"0x1\", \"port_guid\": \"0x1\", \"port_num\": 1, "
                "\"Infiniband_LinkDowned_u_Errors\": -2}]}",
                "values[0].Infiniband_LinkDowned_u_Errors"},
           Case{std::string(200, '[') + std::string(200, ']'), "nested deeper"},
       }) {
    absl::StatusOr<std::vector<UfmPort>> ports = ParseUfmTelemetry(c.json, "ufm.json");
    ASSERT_FALSE(ports.ok()) << c.json;
    EXPECT_EQ(ports.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(ports.status().message(), HasSubstr("ufm.json")) << c.json;
    EXPECT_THAT(ports.status().message(), HasSubstr(c.why)) << c.json;
  }
  EXPECT_THAT(ParseGuidMap("0x1 a/b\n0x01 c/d\n", "m").status().message(),
              HasSubstr("m:2: GUID 0x01 is mapped twice"));
  EXPECT_THAT(ParseGuidMap("0xnope a/b\n", "m").status().message(), HasSubstr("m:1: '0xnope'"));
  EXPECT_THAT(ParseGuidMap("0x1\n", "m").status().message(),
              HasSubstr("m:1: expected 'GUID NAME'"));
}

}  // namespace
}  // namespace topoplace::telemetry
