// topoplaced's config file: keys apply all or none, comments and blank lines are skipped,
// and a bad line names its source and line number.
#include "api/server/server_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace topoplace::server {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(ServerConfigText, KeysApplyAndCommentsBlankLinesAndCarriageReturnsAreSkipped) {
  ServerConfig config;
  const absl::Status s =
      ApplyConfigText("t.conf",
                      "# topoplaced\n\nlisten = 127.0.0.1:9000  # trailing comment\r\n"
                      "db_path=/var/lib/tp/tp.db\n",
                      config);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(config.listen, "127.0.0.1:9000");
  EXPECT_EQ(config.db_path, "/var/lib/tp/tp.db");
}

TEST(ServerConfigText, ALineWithoutKeyAndValueNamesItsLineAndChangesNothing) {
  ServerConfig config;
  const absl::Status s =
      ApplyConfigText("t.conf", "listen = 127.0.0.1:9000\n\njust words\n", config);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), StartsWith("t.conf:3: expected 'key = value'"));
  EXPECT_EQ(config.listen, ServerConfig().listen) << "the good first line is not applied";
}

TEST(ServerConfigText, AnUnknownKeyNamesItsLine) {
  ServerConfig config;
  const absl::Status s = ApplyConfigText("t.conf", "listen = 127.0.0.1:9000\nlisen = x", config);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), StartsWith("t.conf:2: "));
  EXPECT_THAT(std::string(s.message()), HasSubstr("lisen"));
  EXPECT_EQ(config.listen, ServerConfig().listen);
}

}  // namespace
}  // namespace topoplace::server
