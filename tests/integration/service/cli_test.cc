// Specification of the CLI against a running daemon: the ledger commands' exit codes, and
// remote answers that print exactly what the offline commands print.
#include <sys/stat.h>

#include <fstream>

#include "client/topoplace_client.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/service/support/daemon_process.h"
#include "tests/integration/service/support/temp_dir.h"
#include "tests/testing/run_command.h"

namespace topoplace::testing {
namespace {

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(daemon_.Start().ok()) << daemon_.log(); }
  CommandResult Cli(const std::string& args) {
    return RunCommand(ShellQuote(TopoplaceCliPath()) + " --server " + daemon_.address() + " " +
                      args);
  }

  TempDir dir_;
  DaemonProcess daemon_{TopoplacedPath(), {"--db", dir_.File("cli.db")}, dir_.path()};
};

TEST_F(CliTest, Cli_LedgerCommandsRoundTripWithTheDocumentedExitCodes) {
  CommandResult reserve = Cli("reserve --job tp=8,pp=1,dp=2 --json");
  ASSERT_EQ(reserve.exit_code, 0) << reserve.err;
  EXPECT_NE(reserve.out.find("\"id\": \"alloc-1\""), std::string::npos) << reserve.out;
  EXPECT_NE(reserve.out.find("\"schema\": \"topoplace.plan/v1\""), std::string::npos);

  CommandResult commit = Cli("commit alloc-1 --external-id slurm:9 --json");
  ASSERT_EQ(commit.exit_code, 0) << commit.err;
  EXPECT_NE(commit.out.find("\"state\": \"committed\""), std::string::npos) << commit.out;

  CommandResult list = Cli("allocations --json");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("\"external_id\": \"slurm:9\""), std::string::npos) << list.out;

  CommandResult unknown = Cli("commit alloc-77 --external-id slurm:10");
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  EXPECT_NE(unknown.err.find("alloc-77"), std::string::npos) << unknown.err;

  CommandResult bad_spec = Cli("reserve --job tp=3,pp=1,dp=1");
  EXPECT_EQ(bad_spec.exit_code, 2) << bad_spec.err;

  CommandResult too_big = Cli("reserve --job tp=8,pp=1,dp=4096");
  EXPECT_EQ(too_big.exit_code, 3) << too_big.err;

  CommandResult release = Cli("release alloc-1");
  EXPECT_EQ(release.exit_code, 0) << release.err;
  EXPECT_NE(release.out.find("released"), std::string::npos) << release.out;
}

TEST_F(CliTest, Cli_ReserveRetriedWithARequestIdAndRenewed) {
  CommandResult first = Cli("reserve --job tp=8,pp=1,dp=2 --ttl 30 --request-id slurm:5/1 --json");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("\"replayed\": false"), std::string::npos) << first.out;
  CommandResult retry = Cli("reserve --job tp=8,pp=1,dp=2 --ttl 30 --request-id slurm:5/1");
  ASSERT_EQ(retry.exit_code, 0) << retry.err;
  EXPECT_NE(retry.out.find("alloc-1"), std::string::npos) << retry.out;
  EXPECT_NE(retry.out.find("nothing new is held"), std::string::npos) << retry.out;

  CommandResult renew = Cli("renew alloc-1 --ttl 600 --json");
  ASSERT_EQ(renew.exit_code, 0) << renew.err;
  EXPECT_NE(renew.out.find("\"request_id\": \"slurm:5/1\""), std::string::npos) << renew.out;
  CommandResult list = Cli("allocations --json");
  EXPECT_EQ(list.out.find("alloc-2"), std::string::npos) << list.out;

  CommandResult bad_ttl = Cli("renew alloc-1 --ttl 999999");
  EXPECT_EQ(bad_ttl.exit_code, 2) << bad_ttl.err;
  EXPECT_NE(bad_ttl.err.find("ttl_seconds"), std::string::npos) << bad_ttl.err;
}

// superpod-4su: 4 blocks of 32 hosts x 8 GPUs. Blocks 0-2 each hold one 256-GPU Slurm job
// of priority 0; block 3 holds two 128-GPU jobs, a Slurm job of priority 5 and a pod group
// of priority 0. A 256-GPU job of priority 10 that must stay in one block needs one block
// cleared: the cheapest is one of blocks 0-2 (one victim), named by its Slurm job id alone.
TEST_F(CliTest, Cli_PreemptNamesTheSlurmJobsToRequeueForOneBlock) {
  const std::string block_job = "tp=8,pp=4,dp=8";
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(Cli("reserve --job " + block_job + " --ttl 600").exit_code, 0);
    ASSERT_EQ(Cli("commit alloc-" + std::to_string(i + 1) + " --external-id slurm:10" +
                  std::to_string(i + 1))
                  .exit_code,
              0);
  }
  ASSERT_EQ(Cli("reserve --job tp=8,pp=4,dp=4,priority=5 --ttl 600").exit_code, 0);
  ASSERT_EQ(Cli("commit alloc-4 --external-id slurm:104").exit_code, 0);
  ASSERT_EQ(Cli("reserve --job tp=8,pp=4,dp=4 --ttl 600").exit_code, 0);
  ASSERT_EQ(Cli("commit alloc-5 --external-id k8s:team/pg").exit_code, 0);

  CommandResult r = Cli("preempt --for " + block_job + ",max_tier=block,priority=10");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out == "101\n" || r.out == "102\n" || r.out == "103\n") << r.out;
  EXPECT_NE(r.err.find("requeue to fit in block"), std::string::npos) << r.err;

  CommandResult json = Cli("preempt --for " + block_job + ",max_tier=block,priority=10 --json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"schema\": \"topoplace.slurm-preempt/v1\""), std::string::npos);
  EXPECT_NE(json.out.find("\"slurm_job_ids\": [\n    \"" + r.out.substr(0, 3) + "\""),
            std::string::npos)
      << json.out;

  // Nothing of lower priority: nothing to name, exit 3 (cannot place) saying why.
  CommandResult equal = Cli("preempt --for " + block_job + ",max_tier=block");
  EXPECT_EQ(equal.exit_code, 3) << equal.err;
  EXPECT_TRUE(equal.out.empty()) << equal.out;

  // A job that fits as things are: nothing to requeue.
  ASSERT_EQ(Cli("release alloc-1").exit_code, 0);
  CommandResult fits = Cli("preempt --for " + block_job + ",max_tier=block,priority=10");
  EXPECT_EQ(fits.exit_code, 0) << fits.err;
  EXPECT_TRUE(fits.out.empty()) << fits.out;
  EXPECT_NE(fits.err.find("nothing to requeue"), std::string::npos) << fits.err;
}

// Only the pod group of block 3 and the Slurm job beside it can make room there when the
// other blocks hold jobs of higher priority: the pod group is named as not a Slurm job.
TEST_F(CliTest, Cli_PreemptNamesVictimsThatAreNotSlurmJobsOnStderr) {
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(Cli("reserve --job tp=8,pp=4,dp=8,priority=50 --ttl 600").exit_code, 0);
  }
  ASSERT_EQ(Cli("reserve --job tp=8,pp=4,dp=4 --ttl 600").exit_code, 0);
  ASSERT_EQ(Cli("commit alloc-4 --external-id slurm:104").exit_code, 0);
  ASSERT_EQ(Cli("reserve --job tp=8,pp=4,dp=4 --ttl 600").exit_code, 0);
  ASSERT_EQ(Cli("commit alloc-5 --external-id k8s:team/pg").exit_code, 0);
  CommandResult r = Cli("preempt --for tp=8,pp=4,dp=8,max_tier=block,priority=10");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "104\n");
  EXPECT_NE(r.err.find("k8s:team/pg"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not a Slurm job"), std::string::npos) << r.err;
}

// superpod-4su: each of the 4 blocks of 32 hosts holds a 16-host job on its first 16
// hosts; a 24-host job that must stay in one block waits though 64 hosts are free. Moving
// one of the 16-host jobs into another block's free hosts clears room: one move, costed
// at its restart (128 GPUs x 10 minutes by default).
TEST_F(CliTest, Cli_DefragNamesTheMoveThatLetsAWaitingJobFitInOneBlock) {
  for (int b = 0; b < 4; ++b) {
    std::string hosts;
    for (int n = 0; n < 16; ++n) {
      hosts += (n ? "," : "") + std::string("b0") + std::to_string(b) + "-n0" +
               (n < 10 ? "0" : "") + std::to_string(n);
    }
    CommandResult r = Cli("reserve --ttl 600 --job tp=8,pp=4,dp=4,hosts=" + hosts);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const std::string waiting = "tp=8,pp=8,dp=3,max_tier=block";
  ASSERT_EQ(Cli("place --job " + waiting).exit_code, 3) << "it must be waiting";

  CommandResult json = Cli("defrag --for " + waiting + " --json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json d = nlohmann::json::parse(json.out);
  EXPECT_EQ(d["schema"], "topoplace.defrag/v1");
  ASSERT_EQ(d["moves"].size(), 1u) << json.out;
  EXPECT_EQ(d["moves"][0]["gpus"], 128);
  EXPECT_NEAR(d["moves"][0]["gpu_hours"].get<double>(), 128.0 / 6, 1e-9);
  EXPECT_EQ(d["moves"][0]["to_hosts"].size(), 16u);
  ASSERT_EQ(d["freed"].size(), 1u);
  const std::string domain = d["moves"][0]["domain"];
  EXPECT_EQ(domain.rfind("block ", 0), 0u) << domain;
  // The moved job restarts outside the block it clears.
  const std::string cleared = "b0" + domain.substr(6) + "-";
  for (const auto& host : d["moves"][0]["to_hosts"]) {
    EXPECT_NE(host.get<std::string>().rfind(cleared, 0), 0u) << host;
  }

  CommandResult table = Cli("defrag --for " + waiting + " --restart-cost 3600");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("1 move(s) costing 128.00 GPU-hours"), std::string::npos) << table.out;

  CommandResult bad = Cli("defrag --for tp=3,pp=1,dp=1");
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("waiting_job_specs[0]"), std::string::npos) << bad.err;
}

TEST_F(CliTest, Cli_LedgerCommandsWithoutServerAreBadInput) {
  CommandResult r = RunCommand(ShellQuote(TopoplaceCliPath()) + " allocations");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--server"), std::string::npos) << r.err;
}

TEST_F(CliTest, Cli_UnreachableDaemonIsAnInternalErrorNamingTheAddress) {
  daemon_.Kill(SIGKILL);
  CommandResult r = Cli("allocations");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(daemon_.address()), std::string::npos) << r.err;
}

// Hardening round four, finding 8: a refused credential exited 1, "internal error", like
// a crash. It has its own code, 4.
TEST(CliAuthTest, Cli_ACallWithoutTheCredentialExitsNotAllowed) {
  TempDir dir;
  const std::string token_file = dir.File("token");
  std::ofstream(token_file) << "cli-token-0123456789abcdef\n";
  ASSERT_EQ(chmod(token_file.c_str(), 0600), 0);
  DaemonProcess daemon(
      TopoplacedPath(),
      {"--db", dir.File("auth.db"), "--token-file", token_file, "--read-access", "authenticated"},
      dir.path());
  ASSERT_TRUE(daemon.Start().ok()) << daemon.log();
  CommandResult r =
      RunCommand(ShellQuote(TopoplaceCliPath()) + " --server " + daemon.address() + " allocations");
  EXPECT_EQ(r.exit_code, 4) << r.err;
}

TEST_F(CliTest, Cli_RemoteAnswersPrintExactlyWhatTheOfflineCommandsPrint) {
  // On an empty ledger the daemon places on the same free fabric as the offline command.
  const std::string job = "tp=8,pp=4,dp=4,model=70b";
  auto remote = client::RemotePlace(daemon_.address(), job, "");
  ASSERT_TRUE(remote.ok()) << remote.status();
  CommandResult offline =
      RunCommand(ShellQuote(TopoplaceCliPath()) + " place --fabric preset:superpod-4su --job " +
                 job + " --json");
  ASSERT_EQ(offline.exit_code, 0) << offline.err;
  EXPECT_EQ(remote->plan().json() + "\n", offline.out);

  CommandResult offline_table = RunCommand(ShellQuote(TopoplaceCliPath()) +
                                           " place --fabric preset:superpod-4su --job " + job);
  EXPECT_EQ(remote->plan().table(), offline_table.out);

  auto summary = client::RemoteFabricSummary(daemon_.address());
  ASSERT_TRUE(summary.ok()) << summary.status();
  CommandResult show = RunCommand(ShellQuote(TopoplaceCliPath()) +
                                  " fabric show --fabric preset:superpod-4su --json");
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(summary->json(), show.out);
}

}  // namespace
}  // namespace topoplace::testing
