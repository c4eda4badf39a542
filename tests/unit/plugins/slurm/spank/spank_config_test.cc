#include "plugins/slurm/spank/spank_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace topoplace::slurm {
namespace {

using ::testing::HasSubstr;

TEST(ParseSpankArgs, DefaultsWithoutArguments) {
  absl::StatusOr<SpankConfig> config = ParseSpankArgs({});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server, "127.0.0.1:7469");
  EXPECT_EQ(config->timeout, absl::Seconds(5));
  EXPECT_EQ(config->on_failure, FailurePolicy::kProceed);
  EXPECT_EQ(config->ttl_seconds, 0);
}

TEST(ParseSpankArgs, ReadsEveryKey) {
  absl::StatusOr<SpankConfig> config =
      ParseSpankArgs({"server=ctl:7000", "timeout=1.5", "token_file=/etc/tp.token",
                      "ca_file=/etc/ca.pem", "on_failure=refuse", "ttl=600", "policy=flat",
                      "node_map=/etc/map", "hostfile_dir=/var/tmp"});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server, "ctl:7000");
  EXPECT_EQ(config->timeout, absl::Milliseconds(1500));
  EXPECT_EQ(config->token_file, "/etc/tp.token");
  EXPECT_EQ(config->ca_file, "/etc/ca.pem");
  EXPECT_EQ(config->on_failure, FailurePolicy::kRefuse);
  EXPECT_EQ(config->ttl_seconds, 600);
  EXPECT_EQ(config->policy, "flat");
  EXPECT_EQ(config->node_map, "/etc/map");
  EXPECT_EQ(config->hostfile_dir, "/var/tmp");
}

TEST(ParseSpankArgs, TimeoutTakesDurations) {
  absl::StatusOr<SpankConfig> config = ParseSpankArgs({"timeout=750ms"});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->timeout, absl::Milliseconds(750));
}

TEST(ParseSpankArgs, RejectsBadArgumentsNamingThem) {
  struct Case {
    const char* arg;
    const char* message;
  };
  for (const Case& c :
       {Case{"server", "expected key=value"}, Case{"server=nohostport", "HOST:PORT"},
        Case{"timeout=0", "(0, 300]"}, Case{"timeout=soon", "seconds or a duration"},
        Case{"timeout=301", "(0, 300]"}, Case{"on_failure=ignore", "proceed or refuse"},
        Case{"ttl=-1", "[0, 86400]"}, Case{"ttl=86401", "[0, 86400]"},
        Case{"hostfile_dir=", "directory"}, Case{"colour=blue", "unknown key"}}) {
    absl::StatusOr<SpankConfig> config = ParseSpankArgs({c.arg});
    ASSERT_FALSE(config.ok()) << c.arg;
    EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument) << c.arg;
    EXPECT_THAT(config.status().message(), HasSubstr(c.arg));
    EXPECT_THAT(config.status().message(), HasSubstr(c.message));
  }
}

TEST(ValidateTopoplaceOption, ReturnsTheCanonicalSpec) {
  absl::StatusOr<std::string> spec = ValidateTopoplaceOption("dp=2,pp=1,tp=8");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(*spec, HasSubstr("tp=8"));
  EXPECT_THAT(*spec, HasSubstr("dp=2"));
}

TEST(ValidateTopoplaceOption, NamesTheBadField) {
  for (const char* value : {"tp=0", "tp=x,dp=2", "tp=8,colour=blue", "tp=3,gpus_per_node=8"}) {
    absl::StatusOr<std::string> spec = ValidateTopoplaceOption(value);
    ASSERT_FALSE(spec.ok()) << value;
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(spec.status().message(), HasSubstr("--topoplace: "));
  }
  absl::StatusOr<std::string> empty = ValidateTopoplaceOption("");
  EXPECT_THAT(empty.status().message(), HasSubstr("expected a job spec"));
}

}  // namespace
}  // namespace topoplace::slurm
