// Host reports end to end over real loopback gRPC (port 0) and a real SQLite file:
// ReportHost validates and keeps the latest report per host across restarts, and the real
// `topoplace-agent --server` and `topoplace fabric import --server` binaries talk to an
// in-process TopoplaceServer with the credentials from the environment.
#include <gmock/gmock.h>
#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/server/wiring/topoplace_server.h"
#include "client/topoplace_client.h"
#include "plugins/k8s/extender/grpc_placement_backend.h"
#include "scheduler/ledger/clock.h"
#include "store/sqlite/sqlite_host_report_store.h"
#include "tests/integration/service/support/host_report_paging.h"
#include "tests/integration/service/support/temp_dir.h"
#include "tests/integration/service/support/test_certificates.h"
#include "tests/testing/run_command.h"
#include "topoplace/v1/telemetry.grpc.pb.h"

namespace topoplace::server {
namespace {

using client::ClientOptions;
using client::TopoplaceClient;
using ::testing::HasSubstr;
using topoplace::testing::RunCommand;
using topoplace::testing::ShellQuote;

constexpr char kToken[] = "admin-token-0123456789abcdef";
// Per-host tokens of two hosts of preset:rail-512 (b00-n000 ... b00-n063).
constexpr char kHost5Token[] = "host5-token-0123456789abcdef";
constexpr char kHost6Token[] = "host6-token-0123456789abcdef";

std::string ReadFixture(const std::string& relative) {
  std::ifstream in(std::string(TOPOPLACE_DISCOVERY_FIXTURES) + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The recorded report of host g1, renamed to `host`.
std::string ReportOf(const std::string& host) {
  nlohmann::json j = nlohmann::json::parse(ReadFixture("agent-reports/gpu-host.json"));
  j["host"] = host;
  return j.dump();
}

class HostReportTest : public ::testing::Test {
 protected:
  HostReportTest() : clock_(absl::Now()) {
    config_.listen = "127.0.0.1:0";
    config_.db_path = dir_.File("topoplaced.db");
    config_.fabric = "preset:rail-512";
    config_.token_file = dir_.File("token");
    std::ofstream(config_.token_file) << kToken << "\n";
    chmod(config_.token_file.c_str(), 0600);
    // The recorded reports name hosts of a lab machine (g1, n7), not of the preset.
    config_.accept_unknown_hosts = true;
  }

  void WriteHostTokens() {
    config_.host_tokens_file = dir_.File("host-tokens");
    std::ofstream(config_.host_tokens_file)
        << "# host token\nb00-n005 " << kHost5Token << "\nb00-n006 " << kHost6Token << "\n";
    chmod(config_.host_tokens_file.c_str(), 0600);
  }

  void StartServer() {
    auto server = TopoplaceServer::Start(config_, clock_);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
  }

  std::string Address() const { return absl::StrCat("127.0.0.1:", server_->port()); }

  std::unique_ptr<TopoplaceClient> Client(const std::string& token = kToken) {
    ClientOptions options;
    options.server = Address();
    options.token = token;
    options.timeout = absl::Seconds(10);
    return *TopoplaceClient::Connect(options);
  }

  // A shell prefix giving a child process the token through the environment.
  std::string Env() const { return "TOPOPLACE_TOKEN_FILE=" + ShellQuote(config_.token_file) + " "; }

  topoplace::testing::TempDir dir_;
  ledger::FakeClock clock_;
  ServerConfig config_;
  std::unique_ptr<TopoplaceServer> server_;
};

TEST_F(HostReportTest, KeepsTheLatestReportPerHostAcrossARestart) {
  StartServer();
  auto client = Client();
  auto first = client->ReportHost(ReportOf("g1"));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->host(), "g1");
  EXPECT_FALSE(first->replaced());
  ASSERT_TRUE(client->ReportHost(ReportOf("g2")).ok());

  nlohmann::json changed = nlohmann::json::parse(ReportOf("g1"));
  changed["nvlink_domain"] = "nvl72-rack9";
  auto second = client->ReportHost(changed.dump());
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_TRUE(second->replaced());

  server_->Shutdown();
  server_.reset();
  StartServer();  // same SQLite file
  auto listed = Client()->ListHostReports();
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->reports_size(), 2);
  EXPECT_EQ(listed->reports(0).host(), "g1");
  EXPECT_EQ(listed->reports(1).host(), "g2");
  EXPECT_EQ(nlohmann::json::parse(listed->reports(0).report_json())["nvlink_domain"],
            "nvl72-rack9");
  EXPECT_GT(listed->reports(0).received_unix_ms(), 0);
}

TEST_F(HostReportTest, BadReportsAreInvalidArgumentNamingTheField) {
  StartServer();
  auto client = Client();
  struct Case {
    std::string json;
    std::string message;
  };
  nlohmann::json wrong_type = nlohmann::json::parse(ReportOf("g1"));
  wrong_type["nics"][0]["speed_gbps"] = "fast";
  nlohmann::json slash = nlohmann::json::parse(ReportOf("rack/g1"));
  const Case cases[] = {
      {"", "report_json: required"},
      {"{\"format\": \"topoplace.agent-report/v1\"", "report_json"},
      {"[1, 2]", "report_json"},
      {wrong_type.dump(), "speed_gbps"},
      {slash.dump(), "report_json: field host"},
      {std::string(store::kMaxHostReportBytes + 1, ' '), "report_json: at most 1048576 bytes"},
  };
  for (const Case& c : cases) {
    auto r = client->ReportHost(c.json);
    ASSERT_FALSE(r.ok()) << c.json.substr(0, 80);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
    EXPECT_THAT(std::string(r.status().message()), HasSubstr(c.message));
  }
  auto listed = client->ListHostReports();
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->reports_size(), 0) << "a rejected report must not be stored";
}

TEST_F(HostReportTest, ReportingNeedsTheTokenListingDoesNot) {
  StartServer();
  auto r = Client("")->ReportHost(ReportOf("g1"));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnauthenticated) << r.status();
  EXPECT_EQ(Client("wrong")->ReportHost(ReportOf("g1")).status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(Client("")->ListHostReports().ok());
}

TEST_F(HostReportTest, HostTokenReportsOnlyAboutItsOwnHostAndCannotReserve) {
  WriteHostTokens();
  StartServer();
  auto own = Client(kHost5Token)->ReportHost(ReportOf("b00-n005"));
  EXPECT_TRUE(own.ok()) << own.status();
  // The forgery of the finding: a host's token naming another host.
  auto forged = Client(kHost5Token)->ReportHost(ReportOf("b00-n006"));
  EXPECT_EQ(forged.status().code(), absl::StatusCode::kPermissionDenied) << forged.status();
  EXPECT_THAT(std::string(forged.status().message()), HasSubstr("'b00-n005'"));
  auto reserve = Client(kHost5Token)->Reserve("tp=8,pp=1,dp=1", "", 0);
  EXPECT_EQ(reserve.status().code(), absl::StatusCode::kPermissionDenied) << reserve.status();
  // The admin credential may report about any host; hosts may read.
  EXPECT_TRUE(Client(kToken)->ReportHost(ReportOf("b00-n006")).ok());
  auto listed = Client(kHost6Token)->ListHostReports();
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_EQ(listed->reports_size(), 2);
}

// Hardening finding 3: one host credential wrote 124 one-MiB reports in 5 s, and the store
// behind them (etcd) filled up. Each host now has a budget (api/server/guards/report_budget.h):
// 6 reports at once, then one per 10 s; the seventh in a burst is refused, naming the
// host, and other hosts are not affected.
TEST_F(HostReportTest, AHostsReportsAreBudgetedAndOtherHostsAreNotAffected) {
  WriteHostTokens();
  StartServer();
  auto host5 = Client(kHost5Token);
  for (int i = 0; i < 6; ++i) {
    auto sent = host5->ReportHost(ReportOf("b00-n005"));
    ASSERT_TRUE(sent.ok()) << i << ": " << sent.status();
  }
  auto over = host5->ReportHost(ReportOf("b00-n005"));
  EXPECT_EQ(over.status().code(), absl::StatusCode::kResourceExhausted) << over.status();
  EXPECT_THAT(std::string(over.status().message()), HasSubstr("'b00-n005'"));
  EXPECT_THAT(std::string(over.status().message()), HasSubstr("retry in"));
  EXPECT_TRUE(Client(kHost6Token)->ReportHost(ReportOf("b00-n006")).ok());
}

TEST_F(HostReportTest, HostTokenSendsTelemetryOnlyAboutItsOwnPorts) {
  WriteHostTokens();
  StartServer();
  auto stub = v1::Telemetry::NewStub(grpc::CreateChannel(
      absl::StrCat("127.0.0.1:", server_->port()), grpc::InsecureChannelCredentials()));
  auto send = [&](const std::string& reporter, const std::string& endpoint) {
    v1::ReportPortCountersRequest report;
    report.set_reporter(reporter);
    report.add_counters()->set_endpoint(endpoint);
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", std::string("Bearer ") + kHost5Token);
    v1::ReportResponse response;
    return stub->ReportPortCounters(&ctx, report, &response);
  };
  EXPECT_TRUE(send("b00-n005", "b00-n005/mlx5_0").ok());
  // Counters that would mark another host's cable bad, or a switch port's.
  grpc::Status other = send("b00-n005", "b00-n006/mlx5_0");
  EXPECT_EQ(other.error_code(), grpc::StatusCode::PERMISSION_DENIED) << other.error_message();
  EXPECT_NE(other.error_message().find("counters[0].endpoint"), std::string::npos);
  EXPECT_EQ(send("b00-n006", "b00-n006/mlx5_0").error_code(), grpc::StatusCode::PERMISSION_DENIED);
}

// Hardening finding 3: a host credential's probes "from" its own NICs "to" three other
// hosts, all unreachable, took those hosts' links down. One host's word now condemns only
// its own links; the others' stay healthy until a second host or their own agrees.
TEST_F(HostReportTest, HostTokenCannotTakeOtherHostsLinksDownAlone) {
  WriteHostTokens();
  StartServer();
  auto stub = v1::Telemetry::NewStub(grpc::CreateChannel(
      absl::StrCat("127.0.0.1:", server_->port()), grpc::InsecureChannelCredentials()));
  const std::vector<std::string> victims = {"b00-n006", "b00-n007", "b00-n008"};
  for (int round = 0; round < 4; ++round) {
    v1::ReportProbeResultsRequest report;
    report.set_reporter("b00-n005");
    for (const std::string& victim : victims) {
      for (int nic = 0; nic < 8; ++nic) {
        v1::ProbeResult* r = report.add_results();
        r->set_source(absl::StrCat("b00-n005/mlx5_", nic));
        r->set_target(absl::StrCat(victim, "/mlx5_", nic));
        r->set_reachable(false);
      }
    }
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", std::string("Bearer ") + kHost5Token);
    v1::ReportResponse response;
    grpc::Status sent = stub->ReportProbeResults(&ctx, report, &response);
    ASSERT_TRUE(sent.ok()) << sent.error_message();
    ASSERT_TRUE(server_->health().Tick(absl::Now()).ok());
  }
  auto health = [&](const std::string& nic) {
    v1::GetAffectedAllocationsRequest request;
    request.set_link(nic);
    v1::GetAffectedAllocationsResponse response;
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", std::string("Bearer ") + kToken);
    grpc::Status s = stub->GetAffectedAllocations(&ctx, request, &response);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return response.link().health();
  };
  for (const std::string& victim : victims) {
    for (int nic = 0; nic < 8; ++nic) {
      EXPECT_EQ(health(absl::StrCat(victim, "/mlx5_", nic)), "healthy") << victim << " " << nic;
    }
  }
  EXPECT_EQ(health("b00-n005/mlx5_0"), "down");  // nothing the reporter probed answered it
}

TEST_F(HostReportTest, HostCertificateReportsOnlyAboutItsHostOtherCertificatesAreAdmins) {
  auto certs = testing::MakeTestCertificates(dir_.path());
  ASSERT_TRUE(certs.ok()) << certs.status();
  auto host_cert = testing::IssueClientCertificate(dir_.path(), "b00-n005");
  ASSERT_TRUE(host_cert.ok()) << host_cert.status();
  config_.token_file.clear();
  config_.tls_cert_file = certs->server_cert;
  config_.tls_key_file = certs->server_key;
  config_.tls_client_ca_file = certs->ca_cert;
  StartServer();
  auto with_cert = [&](const std::string& cert, const std::string& key) {
    ClientOptions options;
    options.server = Address();
    options.ca_file = certs->ca_cert;
    options.cert_file = cert;
    options.key_file = key;
    options.timeout = absl::Seconds(10);
    return *TopoplaceClient::Connect(options);
  };
  auto host = with_cert(host_cert->first, host_cert->second);
  EXPECT_TRUE(host->ReportHost(ReportOf("b00-n005")).ok());
  EXPECT_EQ(host->ReportHost(ReportOf("b00-n006")).status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(host->Reserve("tp=8,pp=1,dp=1", "", 0).status().code(),
            absl::StatusCode::kPermissionDenied);
  // CN=client names no host of the fabric: a service's (admin) certificate.
  auto admin = with_cert(certs->client_cert, certs->client_key);
  EXPECT_TRUE(admin->ReportHost(ReportOf("b00-n006")).ok());
  EXPECT_TRUE(admin->Reserve("tp=8,pp=1,dp=1", "", 0).ok());
}

TEST_F(HostReportTest, HostileFieldsAndUnknownHostsAreRefusedAndNothingIsStored) {
  config_.accept_unknown_hosts = false;
  StartServer();
  auto client = Client();
  auto with = [](const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json j = nlohmann::json::parse(ReportOf("b00-n001"));
    change(j);
    return j.dump();
  };
  struct Case {
    std::string json;
    absl::StatusCode code;
    std::string message;
  };
  const Case cases[] = {
      {ReportOf("b00-n001\x1b[31m"), absl::StatusCode::kInvalidArgument, "field host"},
      {ReportOf("-rf"), absl::StatusCode::kInvalidArgument, "field host"},
      {with([](nlohmann::json& j) { j["nics"][0]["speed_gbps"] = -5; }),
       absl::StatusCode::kInvalidArgument, "nics[0].speed_gbps"},
      {with([](nlohmann::json& j) { j["nics"][0]["speed_gbps"] = 1e308; }),
       absl::StatusCode::kInvalidArgument, "nics[0].speed_gbps"},
      {with([](nlohmann::json& j) { j["nics"][1]["name"] = "eth2\nb00-n002 down"; }),
       absl::StatusCode::kInvalidArgument, "nics[1].name"},
      {with([](nlohmann::json& j) { j["nvlink_domain"] = "\x1b]0;pwned\x07"; }),
       absl::StatusCode::kInvalidArgument, "nvlink_domain"},
      {with([](nlohmann::json& j) { j["gpus"][0]["index"] = 100000; }),
       absl::StatusCode::kInvalidArgument, "gpus[0].index"},
      {ReportOf("not-in-the-fabric"), absl::StatusCode::kNotFound, "accept_unknown_hosts"},
  };
  for (const Case& c : cases) {
    auto r = client->ReportHost(c.json);
    EXPECT_EQ(r.status().code(), c.code) << c.json.substr(0, 120) << " -> " << r.status();
    EXPECT_THAT(std::string(r.status().message()), HasSubstr(c.message));
  }
  EXPECT_EQ(client->ListHostReports()->reports_size(), 0);
  EXPECT_TRUE(client->ReportHost(ReportOf("b00-n001")).ok());
}

TEST_F(HostReportTest, ReportsAreStoredNoLargerThanSent) {
  StartServer();
  const std::string sent = ReportOf("g1");  // compact JSON, as the agent sends it
  ASSERT_TRUE(Client()->ReportHost(sent).ok());
  auto listed = Client()->ListHostReports();
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->reports_size(), 1);
  // Normalised (defaults written out) but compact: within 10% of what was sent, where the
  // pretty-printed form stored before was several times larger.
  EXPECT_LE(listed->reports(0).report_json().size(), sent.size() * 11 / 10);
  EXPECT_EQ(nlohmann::json::parse(listed->reports(0).report_json())["host"], "g1");
}

TEST_F(HostReportTest, ListIsPagedByHostNameAndTheClientFollowsEveryPage) {
  StartServer();
  auto client = Client();
  for (const char* host : {"g3", "g1", "g5", "g2", "g4"}) {
    ASSERT_TRUE(client->ReportHost(ReportOf(host)).ok());
  }
  std::vector<std::vector<std::string>> pages;
  std::string token;
  do {
    auto page = client->ListHostReportsPage(2, token);
    ASSERT_TRUE(page.ok()) << page.status();
    pages.emplace_back();
    for (const auto& r : page->reports()) pages.back().push_back(r.host());
    token = page->next_page_token();
  } while (!token.empty() && pages.size() < 10);
  EXPECT_EQ(pages, (std::vector<std::vector<std::string>>{{"g1", "g2"}, {"g3", "g4"}, {"g5"}}));
}

TEST_F(HostReportTest, ClientListsMoreReportsThanOnePageHolds) {
  {
    // 300 hosts (the client asks for pages of 256), written straight into the daemon's file.
    auto store = store::OpenSqliteHostReportStore(config_.db_path, store::Durability::kNormal);
    ASSERT_TRUE(store.ok()) << store.status();
    for (int i = 0; i < 300; ++i) {
      const std::string host = absl::StrCat("h", 1000 + i);
      ASSERT_TRUE((*store)->Put(host, ReportOf(host), 1).ok());
    }
  }
  StartServer();
  auto first = Client()->ListHostReportsPage(256, "");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->reports_size(), 256);
  EXPECT_EQ(first->next_page_token(), "h1255");
  // page_size 0 is the unpaged answer older clients get: everything, no token.
  auto unpaged = Client()->ListHostReportsPage(0, "");
  ASSERT_TRUE(unpaged.ok()) << unpaged.status();
  EXPECT_EQ(unpaged->reports_size(), 300);
  EXPECT_TRUE(unpaged->next_page_token().empty());
  auto all = Client()->ListHostReports();
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->reports_size(), 300);
  EXPECT_EQ(all->reports(0).host(), "h1000");
  EXPECT_EQ(all->reports(299).host(), "h1299");
  EXPECT_TRUE(all->next_page_token().empty());
}

TEST_F(HostReportTest, PageSizeOutOfRangeIsInvalidArgument) {
  StartServer();
  for (int size : {-1, 1001}) {
    auto page = Client()->ListHostReportsPage(size, "");
    EXPECT_EQ(page.status().code(), absl::StatusCode::kInvalidArgument) << page.status();
    EXPECT_THAT(std::string(page.status().message()), HasSubstr("page_size: expected 0"));
  }
}

TEST(HostReportStore, PageEndsAtTheLimitOrOnceItsReportsPassTheByteBudget) {
  topoplace::testing::TempDir dir;
  auto store = store::OpenSqliteHostReportStore(dir.File("reports.db"), store::Durability::kNormal);
  ASSERT_TRUE(store.ok()) << store.status();
  topoplace::testing::ExpectHostReportPaging(**store);
}

TEST_F(HostReportTest, AgentSendsAndImportMergesStoredReportsBesideFiles) {
  StartServer();
  const std::string agent =
      absl::StrCat(Env(), TOPOPLACE_AGENT, " --once --no-lldp --host-name n7 --sysfs-root ",
                   ShellQuote(std::string(TOPOPLACE_DISCOVERY_FIXTURES) + "/sysfs/gpu-node"),
                   " --server ", Address());
  auto sent = RunCommand(agent);
  ASSERT_EQ(sent.exit_code, 0) << sent.err;
  EXPECT_THAT(sent.err, HasSubstr("reported n7 to " + Address()));

  auto listed = Client()->ListHostReports();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->reports_size(), 1);
  EXPECT_EQ(listed->reports(0).host(), "n7");

  // Stored reports join the merge beside a report file (g1).
  const std::string fixture =
      std::string(TOPOPLACE_DISCOVERY_FIXTURES) + "/agent-reports/gpu-host.json";
  auto imported = RunCommand(absl::StrCat(Env(), TOPOPLACE_CLI, " fabric import --json --server ",
                                          Address(), " --agent-report ", ShellQuote(fixture)));
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  nlohmann::json summary = nlohmann::json::parse(imported.out);
  EXPECT_EQ(summary["hosts"], 2);
  EXPECT_EQ(summary["gpus"], 4);  // 2 in the recorded tree, 2 in the report file

  // The global --server works too, and the daemon's reports alone are enough.
  auto alone = RunCommand(
      absl::StrCat(Env(), TOPOPLACE_CLI, " --server ", Address(), " fabric import --json"));
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  EXPECT_EQ(nlohmann::json::parse(alone.out)["hosts"], 1);
}

// Every program that calls topoplaced moves past a daemon that is down (house issue, point
// 4): of three daemons listed, the first is stopped; the agent's host report, `topoplace
// health`, port-counter reports (what the agent's probe mode sends) and the Kubernetes
// extender's look-up by external id are all served by the next one.
TEST_F(HostReportTest, EveryProgramMovesPastTheFirstOfThreeDaemonsWhenItIsDown) {
  std::vector<std::unique_ptr<TopoplaceServer>> daemons;
  std::vector<std::string> addresses;
  for (int i = 0; i < 3; ++i) {
    ServerConfig config = config_;
    config.db_path = dir_.File(absl::StrCat("daemon-", i, ".db"));
    auto server = TopoplaceServer::Start(config, clock_);
    ASSERT_TRUE(server.ok()) << server.status();
    addresses.push_back(absl::StrCat("127.0.0.1:", (*server)->port()));
    daemons.push_back(*std::move(server));
  }
  daemons[0]->Shutdown();
  const std::string listed = absl::StrJoin(addresses, ",");
  ClientOptions second;
  second.server = addresses[1];
  second.token = kToken;
  second.timeout = absl::Seconds(10);

  // The agent's host report.
  auto sent = RunCommand(
      absl::StrCat(Env(), TOPOPLACE_AGENT, " --once --no-lldp --host-name n7 --sysfs-root ",
                   ShellQuote(std::string(TOPOPLACE_DISCOVERY_FIXTURES) + "/sysfs/gpu-node"),
                   " --server ", listed));
  ASSERT_EQ(sent.exit_code, 0) << sent.err;
  auto to_second = TopoplaceClient::Connect(second);
  ASSERT_TRUE(to_second.ok()) << to_second.status();
  auto reports = (*to_second)->ListHostReports();
  ASSERT_TRUE(reports.ok()) << reports.status();
  ASSERT_EQ(reports->reports_size(), 1);
  EXPECT_EQ(reports->reports(0).host(), "n7");

  // A port-counter report, through the client the agent's probe mode uses.
  ClientOptions options = second;
  options.server = listed;
  auto client = TopoplaceClient::Connect(options);
  ASSERT_TRUE(client.ok()) << client.status();
  v1::ReportPortCountersRequest counters;
  counters.set_reporter("b00-n000");
  counters.add_counters()->set_endpoint("b00-n000/mlx5_0");
  auto counted = (*client)->ReportPortCounters(counters);
  ASSERT_TRUE(counted.ok()) << counted.status();
  EXPECT_EQ(counted->accepted(), 1);
  EXPECT_EQ((*client)->LastAddress(), addresses[1]);

  // A gang held on the second daemon alone.
  auto reserved = (*client)->Reserve("tp=8,pp=1,dp=1", "", 0);
  ASSERT_TRUE(reserved.ok()) << reserved.status();
  EXPECT_EQ((*client)->LastAddress(), addresses[1]);
  const std::string id = reserved->allocation().allocation_id();
  ASSERT_TRUE((*client)->Commit(id, "k8s:default/gang").ok());

  // `topoplace health --job`: the job's path, which only the second daemon knows.
  auto health = RunCommand(
      absl::StrCat(Env(), TOPOPLACE_CLI, " --server ", listed, " health --job ", id, " --json"));
  ASSERT_EQ(health.exit_code, 0) << health.err;
  EXPECT_THAT(health.out, HasSubstr(id));

  // The extender's look-up of that gang by its external id.
  auto backend = k8s::ConnectGrpcPlacementBackend(options, "");
  ASSERT_TRUE(backend.ok()) << backend.status();
  auto found = (*backend)->FindCommitted("k8s:default/gang");
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(found->allocation_id, id);
}

TEST_F(HostReportTest, AgentWithoutTheTokenFailsAndStoresNothing) {
  StartServer();
  auto sent = RunCommand(
      absl::StrCat(TOPOPLACE_AGENT, " --once --no-lldp --host-name n7 --sysfs-root ",
                   ShellQuote(std::string(TOPOPLACE_DISCOVERY_FIXTURES) + "/sysfs/gpu-node"),
                   " --server ", Address()));
  EXPECT_EQ(sent.exit_code, 1);
  EXPECT_THAT(sent.err, HasSubstr("topoplace-agent:"));
  EXPECT_EQ(Client()->ListHostReports()->reports_size(), 0);
}

TEST_F(HostReportTest, ImportFromAnUnreachableDaemonNamesTheAddress) {
  StartServer();
  const std::string address = Address();
  server_->Shutdown();
  server_.reset();
  auto r = RunCommand(absl::StrCat(Env(), TOPOPLACE_CLI, " fabric import --server ", address));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("topoplaced at " + address));
}

}  // namespace
}  // namespace topoplace::server
