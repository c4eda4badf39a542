#include "api/server/request_limits.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace topoplace::server {
namespace {

using ::testing::HasSubstr;

TEST(RequestLimitsTest, CheckHostName_AcceptsNamesOfSlurmAndKubernetesNodes) {
  for (const char* name : {"b01-n005", "gpu042.cluster.example.com", "node_7", "A100x8"}) {
    EXPECT_TRUE(CheckHostName("host", name).ok()) << name;
  }
}

TEST(RequestLimitsTest, CheckHostName_RefusesControlCharactersSlashesAndLeadingDashes) {
  for (const char* name : {"", "b01-n005\x1b[31m", "rack/g1", "-rf", "a b", ".hidden", "n\n1"}) {
    absl::Status s = CheckHostName("report_json: field host", name);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << name;
    EXPECT_THAT(std::string(s.message()), HasSubstr("report_json: field host"));
  }
  EXPECT_FALSE(CheckHostName("host", std::string(kMaxNameBytes + 1, 'a')).ok());
}

TEST(RequestLimitsTest, CheckPrintable_NamesTheFieldAndTheByte) {
  EXPECT_TRUE(CheckPrintable("external_id", "slurm:4242").ok());
  absl::Status s = CheckPrintable("external_id", "job\n2");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("external_id: control character 0xa at byte 3"));
}

}  // namespace
}  // namespace topoplace::server
