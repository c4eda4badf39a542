#include "api/server/guards/request_limits.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace topoplace::server {
namespace {

using ::testing::HasSubstr;

TEST(RequestLimitsTest, CheckPrintable_NamesTheFieldAndTheByte) {
  EXPECT_TRUE(CheckPrintable("external_id", "slurm:4242").ok());
  absl::Status s = CheckPrintable("external_id", "job\n2");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("external_id: control character 0xa at byte 3"));
}

}  // namespace
}  // namespace topoplace::server
