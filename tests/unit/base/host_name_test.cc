#include "base/host_name.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace topoplace {
namespace {

using ::testing::HasSubstr;

TEST(CheckHostName, AcceptsNamesOfSlurmAndKubernetesNodes) {
  for (const char* name : {"b01-n005", "gpu042.cluster.example.com", "node_7", "A100x8"}) {
    EXPECT_TRUE(CheckHostName("host", name).ok()) << name;
  }
}

// Hardening finding 2: a node "name" that carries ' dp=2' or ',hosts=...' would become
// another field of the spec it is put into.
TEST(CheckHostName, RefusesControlCharactersSlashesLeadingDashesAndSpecSyntax) {
  for (const char* name : {"", "b01-n005\x1b[31m", "rack/g1", "-rf", "a b", ".hidden", "n\n1",
                           "dp=2", "b03-n030,dp=2", "hosts=b03-n031"}) {
    absl::Status s = CheckHostName("report_json: field host", name);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << name;
    EXPECT_THAT(std::string(s.message()), HasSubstr("report_json: field host"));
  }
  EXPECT_FALSE(CheckHostName("host", std::string(kMaxHostNameBytes + 1, 'a')).ok());
  EXPECT_TRUE(CheckHostName("host", std::string(kMaxHostNameBytes, 'a')).ok());
}

}  // namespace
}  // namespace topoplace
