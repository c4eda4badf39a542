#include "base/json_depth.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace topoplace {
namespace {

using ::testing::HasSubstr;

TEST(JsonDepthTest, CheckJsonDepth_AcceptsNestingUpToTheLimit) {
  EXPECT_TRUE(CheckJsonDepth(R"({"a":[{"b":[1,2]}],"c":{}})", "x").ok());
  const std::string at_limit = std::string(128, '[') + std::string(128, ']');
  EXPECT_TRUE(CheckJsonDepth(at_limit, "x").ok());
}

TEST(JsonDepthTest, CheckJsonDepth_RefusesTheDeepBodyOfTheFindingNamingWhereItWent) {
  const std::string deep = R"({"Nodes":{"items":)" + std::string(60000, '[') + "]}}";
  absl::Status s = CheckJsonDepth(deep, "request");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("request: JSON nested deeper than 128 levels at byte 144"));
}

TEST(JsonDepthTest, CheckJsonDepth_BracketsInsideStringsDoNotCount) {
  const std::string quoted =
      "{\"k\":\"" + std::string(1000, '[') + "\\\"" + std::string(1000, '{') + "\"}";
  EXPECT_TRUE(CheckJsonDepth(quoted, "x").ok());
  EXPECT_FALSE(CheckJsonDepth("[[[", "x", 2).ok());
}

}  // namespace
}  // namespace topoplace
