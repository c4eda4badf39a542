// topoplaced's config file: keys apply all or none, comments and blank lines are skipped,
// and a bad line names its source and line number.
#include "api/server/config/server_config.h"

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

// Hardening round four, finding 8: a key given twice silently took its last value.
TEST(ServerConfigText, AKeyGivenTwiceNamesBothLinesAndChangesNothing) {
  ServerConfig config;
  const absl::Status s = ApplyConfigText(
      "t.conf", "listen = 127.0.0.1:9000\ndb_path = a.db\nlisten = 0.0.0.0:9000\n", config);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()),
              StartsWith("t.conf:3: listen: given again (first on line 1)"));
  EXPECT_EQ(config.listen, ServerConfig().listen);
}

// A long line is quoted in part: the error says where, not the whole line again.
TEST(ServerConfigText, AnErrorQuotesAShortExcerpt) {
  ServerConfig config;
  const absl::Status s = ApplyConfigText("t.conf", std::string(30 << 20, 'x'), config);
  ASSERT_FALSE(s.ok());
  EXPECT_LT(s.message().size(), 200u);
}

// Finding 7: what a Slurm user may hold is configured with these keys, checked.
TEST(ServerConfigText, UserLimitsAreKeysWithRanges) {
  ServerConfig config;
  ASSERT_TRUE(ApplyConfigText("t.conf",
                              "user_max_priority = 100\nuser_max_reservations = 4\n"
                              "user_max_reserved_gpus = 64\nuser_max_ttl_seconds = 600\n",
                              config)
                  .ok());
  EXPECT_EQ(config.user_max_priority, 100);
  EXPECT_EQ(config.user_max_reservations, 4);
  EXPECT_EQ(config.user_max_reserved_gpus, 64);
  EXPECT_EQ(config.user_max_ttl, absl::Seconds(600));
  EXPECT_THAT(std::string(ApplyConfigText("t.conf", "user_max_reservations = 0", config).message()),
              HasSubstr("user_max_reservations: expected a count from 1"));
  EXPECT_EQ(ServerConfig().max_connections, 4096) << "the relay is on by default";
}

}  // namespace
}  // namespace topoplace::server
