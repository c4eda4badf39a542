// The crash test: many concurrent clients reserve and commit against the real topoplaced;
// the daemon is killed with SIGKILL in the middle of that; after a restart on the same
// database every acknowledged commit is there with its GPUs, no GPU is held twice, and
// every reservation that was never committed is either still present and expiring, or
// gone.
#include <signal.h>

#include <thread>
#include <vector>

#include "client/topoplace_client.h"
#include "gtest/gtest.h"
#include "tests/integration/service/support/commit_burst.h"
#include "tests/integration/service/support/daemon_process.h"
#include "tests/integration/service/support/temp_dir.h"

namespace topoplace::testing {
namespace {

constexpr int kClients = 8;
// Kill once this many commits were acknowledged (clients keep going meanwhile).
constexpr int kCommitsBeforeKill = 40;

TEST(CrashTest, Crash_SigkillMidTrafficLosesNoAcknowledgedCommitAndDoublesNoGpu) {
  TempDir dir;
  const std::vector<std::string> args = {"--db", dir.File("crash.db"), "--durability", "full"};
  Acknowledged acked;
  {
    DaemonProcess daemon(TopoplacedPath(), args, dir.path());
    ASSERT_TRUE(daemon.Start().ok()) << daemon.log();
    client::ClientOptions options;
    options.server = daemon.address();
    options.timeout = absl::Seconds(10);
    std::vector<std::thread> clients;
    for (int c = 0; c < kClients; ++c) {
      clients.emplace_back([&, c] { CommitBurst(options, c, acked); });
    }
    // Bounded so a broken daemon fails the test instead of hanging it.
    acked.AwaitCommits(kCommitsBeforeKill, std::chrono::seconds(90));
    daemon.Kill(SIGKILL);  // in the middle: clients are still reserving and committing
    for (std::thread& t : clients) t.join();
  }
  ASSERT_GE(acked.commits.size(), static_cast<size_t>(kCommitsBeforeKill)) << "too slow to test";

  DaemonProcess daemon(TopoplacedPath(), args, dir.path());
  ASSERT_TRUE(daemon.Start().ok()) << daemon.log();
  client::ClientOptions options;
  options.server = daemon.address();
  auto client = *client::TopoplaceClient::Connect(options);
  auto live = client->ListAllocations();
  ASSERT_TRUE(live.ok()) << live.status();

  ExpectAcknowledgedCommitsKept(*live, acked);
  // The restarted daemon keeps serving new work.
  auto more = client->Reserve("tp=8,pp=1,dp=1", "", 0);
  EXPECT_TRUE(more.ok() || more.status().code() == absl::StatusCode::kResourceExhausted)
      << more.status();
}

}  // namespace
}  // namespace topoplace::testing
