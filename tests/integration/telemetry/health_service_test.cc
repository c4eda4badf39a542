// Link health through the real service (in-process TopoplaceServer, loopback gRPC, SQLite):
// bad reports are rejected and change nothing; unreachable probes take a NIC cable down
// after the hysteresis; WatchFabric streams the change; placement avoids the host; the
// reverse lookup lists the allocation the link touches; the state survives a restart;
// `topoplace health` lists a job whose host's cable turned degraded as at risk; a restart
// naming the interrupted allocation (replace_on_restart) avoids the host whose cable failed.
#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>

#include <set>
#include <string>

#include "api/server/wiring/topoplace_server.h"
#include "client/topoplace_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "scheduler/ledger/clock.h"
#include "store/sqlite/sqlite_db.h"
#include "tests/integration/service/support/temp_dir.h"
#include "tests/testing/run_command.h"
#include "topology/discovery/agent_report.h"
#include "topoplace/v1/telemetry.grpc.pb.h"
#include "topoplace/v1/topology.grpc.pb.h"

namespace topoplace::server {
namespace {

using ::testing::HasSubstr;

constexpr char kNic[] = "b00-n000/mlx5_0";  // superpod-4su: leaf-b00-r0
constexpr char kPeer[] = "b00-n001/mlx5_0";

class HealthServiceTest : public ::testing::Test {
 protected:
  HealthServiceTest() : clock_(absl::Now()) {
    config_.listen = "127.0.0.1:0";
    config_.db_path = dir_.File("topoplaced.db");
    config_.fabric = "preset:superpod-4su";
    config_.durability = "normal";
  }
  void Start() {
    auto server = TopoplaceServer::Start(config_, clock_);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
    client::ClientOptions options;
    options.server = absl::StrCat("127.0.0.1:", server_->port());
    client_ = *client::TopoplaceClient::Connect(options);
    telemetry_ = v1::Telemetry::NewStub(grpc::CreateChannel(
        absl::StrCat("127.0.0.1:", server_->port()), grpc::InsecureChannelCredentials()));
  }
  grpc::Status Report(const std::string& source, const std::string& target, bool reachable,
                      double latency_us = 5) {
    v1::ReportProbeResultsRequest request;
    request.set_reporter("test");
    v1::ProbeResult* r = request.add_results();
    r->set_source(source);
    r->set_target(target);
    r->set_reachable(reachable);
    if (reachable) r->set_latency_us(latency_us);
    grpc::ClientContext ctx;
    v1::ReportResponse response;
    return telemetry_->ReportProbeResults(&ctx, request, &response);
  }
  // `times` reports of one probe, each judged by a tick.
  void ReportAndTick(int times, const std::string& source, const std::string& target,
                     bool reachable, double latency_us = 5) {
    for (int i = 0; i < times; ++i) {
      ASSERT_TRUE(Report(source, target, reachable, latency_us).ok());
      ASSERT_TRUE(server_->health().Tick(absl::Now()).ok());
    }
  }
  std::string Health(const std::string& link) {
    v1::GetAffectedAllocationsRequest request;
    request.set_link(link);
    v1::GetAffectedAllocationsResponse response;
    grpc::ClientContext ctx;
    grpc::Status s = telemetry_->GetAffectedAllocations(&ctx, request, &response);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return response.link().health();
  }

  testing::TempDir dir_;
  ledger::FakeClock clock_;
  ServerConfig config_;
  std::unique_ptr<TopoplaceServer> server_;
  std::unique_ptr<client::TopoplaceClient> client_;
  std::unique_ptr<v1::Telemetry::Stub> telemetry_;
};

TEST_F(HealthServiceTest, BadReportsAreRejectedAndChangeNothing) {
  Start();
  struct Case {
    std::string source, target;
    double latency;
    grpc::StatusCode code;
    std::string message;
  } cases[] = {
      {"b99-n000/mlx5_0", kPeer, 5, grpc::StatusCode::NOT_FOUND, "no NIC 'b99-n000/mlx5_0'"},
      {kNic, "leaf-b00-r0", 5, grpc::StatusCode::NOT_FOUND, "results[0].target"},
      {kNic, kPeer, 1e15, grpc::StatusCode::INVALID_ARGUMENT, "latency_us"},
  };
  for (const Case& c : cases) {
    for (int i = 0; i < 3; ++i) {
      grpc::Status s = Report(c.source, c.target, true, c.latency);
      EXPECT_EQ(s.error_code(), c.code) << c.message;
      EXPECT_THAT(s.error_message(), HasSubstr(c.message));
      ASSERT_TRUE(server_->health().Tick(absl::Now()).ok());
    }
  }
  EXPECT_EQ(Health(kNic), "healthy");
  EXPECT_EQ(server_->health().health_version(), 0u);
}

TEST_F(HealthServiceTest, DownLinkIsStreamedAvoidedListedAndRemembered) {
  Start();
  // An allocation on b00-n000 first (one host, 8 GPUs).
  absl::StatusOr<v1::ReserveResponse> held = client_->Reserve("tp=8,pp=1,dp=1", "", 600);
  ASSERT_TRUE(held.ok()) << held.status();
  const std::string host = held->allocation().gpus(0).host();

  // Watch from before the change.
  auto topology = v1::Topology::NewStub(grpc::CreateChannel(
      absl::StrCat("127.0.0.1:", server_->port()), grpc::InsecureChannelCredentials()));
  grpc::ClientContext watch_ctx;
  auto watch = topology->WatchFabric(&watch_ctx, v1::WatchFabricRequest());
  v1::FabricSummary first;
  ASSERT_TRUE(watch->Read(&first));
  EXPECT_EQ(first.down_links(), 0);

  const std::string nic = host + "/mlx5_0";
  const std::string peer = host == "b00-n001" ? "b00-n000/mlx5_0" : "b00-n001/mlx5_0";
  ASSERT_TRUE(Report(nic, peer, false).ok());
  ASSERT_TRUE(server_->health().Tick(absl::Now()).ok());
  EXPECT_EQ(Health(nic), "healthy") << "one bad sample must not flap";
  ASSERT_TRUE(Report(nic, peer, false).ok());
  ASSERT_TRUE(server_->health().Tick(absl::Now()).ok());
  EXPECT_EQ(Health(nic), "down");

  v1::FabricSummary changed;
  ASSERT_TRUE(watch->Read(&changed));
  EXPECT_GE(changed.health_version(), 1u);
  EXPECT_GE(changed.down_links(), 1);
  watch_ctx.TryCancel();
  while (watch->Read(&changed)) {
  }
  (void)watch->Finish();

  // The reverse lookup lists the allocation; the job path shows the down cable.
  v1::GetAffectedAllocationsRequest affected_request;
  affected_request.set_link(nic);
  v1::GetAffectedAllocationsResponse affected;
  grpc::ClientContext ctx;
  ASSERT_TRUE(telemetry_->GetAffectedAllocations(&ctx, affected_request, &affected).ok());
  ASSERT_EQ(affected.allocations_size(), 1);
  EXPECT_EQ(affected.allocations(0).allocation_id(), held->allocation().allocation_id());
  v1::GetJobPathRequest path_request;
  path_request.set_allocation_id(held->allocation().allocation_id());
  v1::GetJobPathResponse path;
  grpc::ClientContext path_ctx;
  ASSERT_TRUE(telemetry_->GetJobPath(&path_ctx, path_request, &path).ok());
  bool saw_down = false;
  for (const v1::LinkHealth& l : path.links()) saw_down = saw_down || l.health() == "down";
  EXPECT_TRUE(saw_down);

  // After release, a job that would fit on that host avoids it.
  ASSERT_TRUE(client_->Release(held->allocation().allocation_id()).ok());
  for (int i = 0; i < 4; ++i) {
    absl::StatusOr<v1::ReserveResponse> next = client_->Reserve("tp=8,pp=1,dp=1", "", 600);
    ASSERT_TRUE(next.ok()) << next.status();
    EXPECT_NE(next->allocation().gpus(0).host(), host);
  }

  // Restart: the persisted event restores the down state.
  server_->Shutdown();
  server_.reset();
  Start();
  EXPECT_EQ(Health(nic), "down");
}

// A job holds b00-n000 (or whichever host it got). Its first NIC's probes, 5 us at first,
// take 10 ms twice: the cable is judged degraded, and `topoplace health` (the real CLI
// over loopback gRPC) lists the job as at risk with that link, in JSON and in the table.
TEST_F(HealthServiceTest, AJobOnAHostWhoseCableDegradedIsListedAtRiskWithTheLink) {
  Start();
  absl::StatusOr<v1::ReserveResponse> held = client_->Reserve("tp=8,pp=1,dp=1", "", 600);
  ASSERT_TRUE(held.ok()) << held.status();
  const std::string id = held->allocation().allocation_id();
  const std::string host = held->allocation().gpus(0).host();
  const std::string nic = host + "/mlx5_0";
  const std::string peer = host == "b00-n001" ? "b00-n000/mlx5_0" : "b00-n001/mlx5_0";
  const std::string cli =
      absl::StrCat(TOPOPLACE_CLI, " --server 127.0.0.1:", server_->port(), " health");
  ReportAndTick(1, nic, peer, true, 5);
  testing::CommandResult before = testing::RunCommand(cli + " --json");
  ASSERT_EQ(before.exit_code, 0) << before.err;
  EXPECT_TRUE(nlohmann::json::parse(before.out)["at_risk"].empty());
  ReportAndTick(2, nic, peer, true, 10000);
  ASSERT_EQ(Health(nic), "degraded");
  testing::CommandResult json = testing::RunCommand(cli + " --json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j["at_risk"].size(), 1u) << json.out;
  EXPECT_EQ(j["at_risk"][0]["allocation_id"], id);
  ASSERT_EQ(j["at_risk"][0]["links"].size(), 1u);
  EXPECT_EQ(j["at_risk"][0]["links"][0]["health"], "degraded");
  EXPECT_THAT(j["at_risk"][0]["links"][0]["link"].get<std::string>(), HasSubstr(nic));
  testing::CommandResult table = testing::RunCommand(cli);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("at risk: 1 live allocation(s) crossing them"));
  EXPECT_THAT(table.out, HasSubstr(id));
  // Released, it is at risk no more.
  ASSERT_TRUE(client_->Release(id).ok());
  testing::CommandResult after = testing::RunCommand(cli + " --json");
  ASSERT_EQ(after.exit_code, 0) << after.err;
  EXPECT_TRUE(nlohmann::json::parse(after.out)["at_risk"].empty());
}

// A one-host job runs on host H; H's cable goes down (the job is interrupted and released)
// and comes back. A plain restart lands on H again (first host with room); one that names
// the interrupted allocation in replace_on_restart does not. An unknown allocation there
// is InvalidArgument naming the field.
TEST_F(HealthServiceTest, ReplaceOnRestartKeepsTheRestartOffTheHostWhoseCableFailed) {
  Start();
  absl::StatusOr<v1::ReserveResponse> run = client_->Reserve("tp=8,pp=1,dp=1", "", 600);
  ASSERT_TRUE(run.ok()) << run.status();
  const std::string id = run->allocation().allocation_id();
  const std::string host = run->allocation().gpus(0).host();
  const std::string nic = host + "/mlx5_0";
  const std::string peer = host == "b00-n001" ? "b00-n000/mlx5_0" : "b00-n001/mlx5_0";
  ReportAndTick(2, nic, peer, false);
  ASSERT_EQ(Health(nic), "down");
  ASSERT_TRUE(client_->Release(id).ok());
  ReportAndTick(3, nic, peer, true);
  ASSERT_EQ(Health(nic), "healthy");
  absl::StatusOr<v1::ReserveResponse> plain = client_->Reserve("tp=8,pp=1,dp=1", "", 600);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->allocation().gpus(0).host(), host);
  ASSERT_TRUE(client_->Release(plain->allocation().allocation_id()).ok());
  absl::StatusOr<v1::ReserveResponse> restart =
      client_->Reserve("tp=8,pp=1,dp=1,replace_on_restart=" + id, "", 600);
  ASSERT_TRUE(restart.ok()) << restart.status();
  EXPECT_NE(restart->allocation().gpus(0).host(), host);
  absl::StatusOr<v1::ReserveResponse> unknown =
      client_->Reserve("tp=8,pp=1,dp=1,replace_on_restart=alloc-999", "", 600);
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(unknown.status().message()), HasSubstr("replace_on_restart"));
}

// b00-n000's agent report; LLDP shows each NIC's leaf except those in `lost`.
std::string HostReportWithLldp(const Fabric& fabric, const std::set<std::string>& lost) {
  discovery::AgentReport report;
  report.host = "b00-n000";
  for (NicId nic : fabric.hosts()[*fabric.FindHost(report.host)].nics) {
    const Nic& n = fabric.nics()[nic];
    report.nics.push_back({.name = n.name, .speed_gbps = n.speed_gbps, .state = "up"});
    if (lost.count(n.name) == 0) {
      report.lldp.push_back({.local_port = n.name,
                             .system_name = fabric.switches()[n.leaf].name,
                             .port = "swp1",
                             .role = discovery::NodeRole::kSwitch});
    }
  }
  return discovery::AgentReportToJson(report);
}

TEST_F(HealthServiceTest, LldpNeighborLossFromAnAgentReportTakesTheCableDownAndBack) {
  Start();
  const Fabric& fabric = server_->fabric();
  auto send = [&](const std::set<std::string>& lost) {
    absl::StatusOr<v1::ReportHostResponse> r =
        client_->ReportHost(HostReportWithLldp(fabric, lost));
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_TRUE(server_->health().Tick(absl::Now()).ok());
  };
  send({"mlx5_0"});
  EXPECT_EQ(Health(kNic), "healthy") << "one report must not flap";
  send({"mlx5_0"});
  EXPECT_EQ(Health(kNic), "down");
  EXPECT_EQ(Health("b00-n000/mlx5_1"), "healthy");
  for (int i = 0; i < 3; ++i) send({});
  EXPECT_EQ(Health(kNic), "healthy");
}

TEST_F(HealthServiceTest, RetentionPrunesOldTimeSeriesRows) {
  config_.telemetry_retention = absl::Hours(1);
  Start();
  v1::ReportProbeResultsRequest request;
  request.set_reporter("test");
  for (int64_t age_hours : {3, 2, 0}) {
    v1::ProbeResult* r = request.add_results();
    r->set_source(kNic);
    r->set_target(kPeer);
    r->set_reachable(true);
    r->set_latency_us(4);
    r->set_measured_unix_ms(absl::ToUnixMillis(absl::Now() - absl::Hours(age_hours)));
  }
  grpc::ClientContext ctx;
  v1::ReportResponse response;
  ASSERT_TRUE(telemetry_->ReportProbeResults(&ctx, request, &response).ok());
  // The first tick of a monitor prunes (then once a minute).
  server_->Shutdown();
  server_.reset();
  Start();
  ASSERT_TRUE(server_->health().Tick(absl::Now()).ok());
  absl::StatusOr<std::unique_ptr<store::SqliteDb>> db = store::SqliteDb::Open(config_.db_path);
  ASSERT_TRUE(db.ok()) << db.status();
  absl::StatusOr<store::SqliteStatement> count =
      (*db)->Prepare("SELECT COUNT(*) FROM probe_results");
  ASSERT_TRUE(count.ok());
  ASSERT_TRUE(*count->Step());
  EXPECT_EQ(count->ColumnInt(0), 1) << "only the row inside the 1 h retention stays";
}

}  // namespace
}  // namespace topoplace::server
