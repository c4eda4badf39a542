// Specification of the topoplace service over real loopback gRPC (port 0) and a real
// SQLite file: an in-process TopoplaceServer and the client library the CLI uses.
#include <arpa/inet.h>
#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/server_builder.h>
#include <grpcpp/support/byte_buffer.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "api/server/wiring/topoplace_server.h"
#include "client/topoplace_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/ledger/clock.h"
#include "tests/integration/service/support/temp_dir.h"
#include "tests/integration/service/support/test_certificates.h"
#include "tests/testing/fabrics.h"
#include "topology/generate/reference_fabrics.h"
#include "topology/io/fabric_file.h"

namespace topoplace::server {
namespace {

constexpr char kToken[] = "s3cret-token-0123456789abcdef";

using client::ClientOptions;
using client::TopoplaceClient;
using ::testing::HasSubstr;
using ::testing::Not;

class ServiceTest : public ::testing::Test {
 protected:
  ServiceTest() : clock_(absl::Now()) {
    config_.listen = "127.0.0.1:0";
    config_.db_path = dir_.File("topoplaced.db");
    config_.fabric = "preset:superpod-4su";
    config_.reservation_ttl = absl::Seconds(30);
  }

  void StartServer() {
    auto server = TopoplaceServer::Start(config_, clock_);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
  }

  std::unique_ptr<TopoplaceClient> Client(const std::string& token = "") {
    ClientOptions options;
    options.token = token;
    return Client(options);
  }

  std::unique_ptr<TopoplaceClient> Client(ClientOptions options) {
    options.server = absl::StrCat("127.0.0.1:", server_->port());
    options.timeout = absl::Seconds(10);
    return *TopoplaceClient::Connect(options);
  }

  // Writes the admin token file as an operator must: readable by its owner only.
  void WriteToken(const std::string& token, mode_t mode = 0600) {
    config_.token_file = dir_.File("token");
    std::ofstream(config_.token_file) << token << "\n";
    ASSERT_EQ(chmod(config_.token_file.c_str(), mode), 0);
  }

  testing::TempDir dir_;
  ledger::FakeClock clock_;
  ServerConfig config_;
  std::unique_ptr<TopoplaceServer> server_;
};

// Client options that trust the test CA, optionally with the client certificate and a token.
ClientOptions TlsOptions(const testing::TestCertificates& certs, bool client_certificate,
                         const std::string& token = "") {
  ClientOptions options;
  options.ca_file = certs.ca_cert;
  if (client_certificate) {
    options.cert_file = certs.client_cert;
    options.key_file = certs.client_key;
  }
  options.token = token;
  return options;
}

std::set<std::string> GpuNames(const v1::Allocation& a) {
  std::set<std::string> out;
  for (const v1::GpuSlot& g : a.gpus()) out.insert(absl::StrCat(g.host(), "/gpu", g.gpu()));
  return out;
}

TEST_F(ServiceTest, Service_PlaceIsADryRunThatHoldsNothing) {
  StartServer();
  auto client = Client();
  auto first = client->Place("tp=8,pp=2,dp=4", "");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->plan().ranks_size(), 64);
  EXPECT_EQ(first->plan().hosts_size(), 8);
  EXPECT_EQ(first->fabric_version(), 1u);
  EXPECT_NE(first->plan().json().find("\"schema\": \"topoplace.plan/v1\""), std::string::npos);
  auto second = client->Place("tp=8,pp=2,dp=4", "");
  ASSERT_TRUE(second.ok());
  // Nothing was held, so the same job lands on the same hosts again.
  EXPECT_EQ(first->plan().json(), second->plan().json());
  EXPECT_EQ(client->ListAllocations()->allocations_size(), 0);
}

// Hardening round four, finding 2: a preemption's Reserve names its victims, which the
// same ledger change releases; the job is placed as if their GPUs were free.
TEST_F(ServiceTest, Service_AReserveReleasesItsVictimsInTheSameChange) {
  StartServer();
  auto client = Client();
  auto low = client->Reserve("tp=8,pp=1,dp=2", "", 0);
  ASSERT_TRUE(low.ok()) << low.status();
  const std::string victim = low->allocation().allocation_id();
  ASSERT_TRUE(client->Commit(victim, "k8s:ml/low").ok());
  v1::ReserveRequest request;
  request.set_job_spec("tp=8,pp=1,dp=2");
  for (const std::string& host : low->plan().hosts()) request.add_hosts(host);
  request.add_release_allocation_ids(victim);
  auto urgent = client->Reserve(request);
  ASSERT_TRUE(urgent.ok()) << urgent.status();
  EXPECT_EQ(std::vector<std::string>(urgent->plan().hosts().begin(), urgent->plan().hosts().end()),
            std::vector<std::string>(low->plan().hosts().begin(), low->plan().hosts().end()))
      << "placed on the victim's hosts, as if free";
  EXPECT_EQ(client->GetAllocation(victim)->state(), v1::ALLOCATION_STATE_RELEASED);
  EXPECT_EQ(client->ListAllocations()->allocations_size(), 1);
}

// The blocks of a plan's hosts, in order of first use.
std::vector<int32_t> PlanBlocks(const Fabric& fabric, const v1::PlacementPlan& plan) {
  std::vector<int32_t> blocks;
  for (const std::string& name : plan.hosts()) {
    const int32_t b = fabric.hosts()[*fabric.FindHost(name)].block;
    if (std::find(blocks.begin(), blocks.end(), b) == blocks.end()) blocks.push_back(b);
  }
  return blocks;
}

// The daemon reads the uplink load file an exporter keeps current: missing, it places
// without load; once it says a block's uplinks are hot, Place and Reserve avoid that block.
TEST_F(ServiceTest, Service_UplinkLoadFileSteersPlacementsOffAHotBlock) {
  config_.uplink_load_file = dir_.File("uplink-load.txt");
  StartServer();
  auto client = Client();
  const std::string job = "tp=8,pp=8,dp=8,model=70b";  // 64 nodes: two of four blocks
  auto before = client->Place(job, "");
  ASSERT_TRUE(before.ok()) << before.status();
  const std::vector<int32_t> first = PlanBlocks(server_->fabric(), before->plan());
  ASSERT_EQ(first.size(), 2u);
  {
    std::ofstream file(config_.uplink_load_file);
    for (SwitchId leaf : server_->fabric().blocks()[first[0]].leaves) {
      file << server_->fabric().switches()[leaf].name << " 0.9\n";
    }
  }
  auto placed = client->Place(job, "");
  ASSERT_TRUE(placed.ok()) << placed.status();
  const std::vector<int32_t> after = PlanBlocks(server_->fabric(), placed->plan());
  EXPECT_EQ(std::find(after.begin(), after.end(), first[0]), after.end());
  auto reserved = client->Reserve(job, "", 0);
  ASSERT_TRUE(reserved.ok()) << reserved.status();
  EXPECT_EQ(PlanBlocks(server_->fabric(), reserved->plan()), after);
  // A malformed file means no load known: placement goes on.
  std::ofstream(config_.uplink_load_file) << "no-such-switch 0.5\n";
  EXPECT_TRUE(client->Place("tp=8,pp=1,dp=2", "").ok());
}

// With uplink_load_from_allocations the daemon needs no telemetry: the plans of the jobs it
// holds say which uplinks are busy, and a new job is steered off them; a restarted daemon
// counts the jobs it already holds from their stored offers.
TEST_F(ServiceTest, Service_LiveAllocationsLoadSteersPlacementsOffTheirUplinks) {
  // Four blocks of two 2-GPU hosts; each leaf has as much up as down (2 x 100 Gb/s), so a
  // job whose data-parallel ring crosses blocks fills a real share of its leaves' uplinks.
  ClosParams shape = ::topoplace::testing::TinyClos(/*blocks=*/4, /*nodes=*/2);
  config_.fabric = dir_.File("tiny.json");
  ASSERT_TRUE(SaveFabricFile(**GenerateClos(shape), config_.fabric).ok());
  config_.uplink_load_from_allocations = true;
  StartServer();
  auto client = Client();
  // Three of eight hosts: one block whole and one host of another, talking across them.
  // A short sequence and one micro-batch: little compute, so the all-reduce dominates.
  const std::string job = "tp=2,pp=1,dp=3,gpus_per_node=2,model=70b,s=256,mb=1";
  auto held = client->Reserve(job, "", 0);
  ASSERT_TRUE(held.ok()) << held.status();
  ASSERT_GT(held->allocation().uplink_offer_size(), 0);
  EXPECT_GT(held->allocation().uplink_offer(0).bytes_per_second(), 0);
  EXPECT_TRUE(server_->fabric().FindSwitch(held->allocation().uplink_offer(0).switch_name()));
  EXPECT_THAT(held->plan().json(), Not(HasSubstr("uplink_offer"))) << "the plan as placed";
  ASSERT_EQ(PlanBlocks(server_->fabric(), held->plan()).size(), 2u);
  auto steered = client->Place(job, "");
  ASSERT_TRUE(steered.ok()) << steered.status();

  // The same daemon without the option (same ledger) places the job by occupancy alone.
  server_.reset();
  config_.uplink_load_from_allocations = false;
  StartServer();
  auto blind = Client()->Place(job, "");
  ASSERT_TRUE(blind.ok()) << blind.status();
  const std::vector<int32_t> held_blocks = PlanBlocks(server_->fabric(), held->plan());
  const std::vector<int32_t> blind_blocks = PlanBlocks(server_->fabric(), blind->plan());
  const std::vector<int32_t> steered_blocks = PlanBlocks(server_->fabric(), steered->plan());
  // Blind, the job fills the held job's half-used block; steered, it keeps off it.
  ASSERT_EQ(held_blocks.size(), 2u);
  EXPECT_NE(std::find(blind_blocks.begin(), blind_blocks.end(), held_blocks[1]),
            blind_blocks.end());
  for (int32_t b : held_blocks) {
    EXPECT_EQ(std::find(steered_blocks.begin(), steered_blocks.end(), b), steered_blocks.end());
  }

  // Restarted with the option, it counts the held job from its stored offer again.
  server_.reset();
  config_.uplink_load_from_allocations = true;
  StartServer();
  auto again = Client()->Place(job, "");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(PlanBlocks(server_->fabric(), again->plan()), steered_blocks);
}

// A fabric-side collector reports each switch port's bytes sent and the node at its other
// end: with uplink_load_from_counters, two readings of a block's leaf uplinks at 90% of
// their capacity steer the next job off that block; readings older than the max age, and
// down ports, do not; a report naming an unknown peer is refused whole.
TEST_F(ServiceTest, Service_MeasuredUplinkCounterRatesSteerPlacementsOffAHotBlock) {
  config_.uplink_load_from_counters = true;
  config_.uplink_counter_max_age = absl::Seconds(60);
  StartServer();
  auto client = Client();
  auto stub = v1::Telemetry::NewStub(grpc::CreateChannel(
      absl::StrCat("127.0.0.1:", server_->port()), grpc::InsecureChannelCredentials()));
  const Fabric& fabric = server_->fabric();
  const std::string job = "tp=8,pp=8,dp=8,model=70b";  // 64 nodes: two of four blocks
  auto before = client->Place(job, "");
  ASSERT_TRUE(before.ok()) << before.status();
  const std::vector<int32_t> first = PlanBlocks(fabric, before->plan());
  ASSERT_EQ(first.size(), 2u);

  // Two readings, 10 s apart and `age` old, of every uplink port of the first block's
  // leaves, sending `share` of the port's capacity; its down ports (to hosts) send as much.
  auto report = [&](absl::Duration age, double share, const std::string& peer_override = "") {
    const absl::Time now = absl::Now();
    for (int reading = 0; reading < 2; ++reading) {
      v1::ReportPortCountersRequest request;
      request.set_reporter("collector");
      const absl::Time at = now - age + absl::Seconds(10 * reading);
      for (SwitchId leaf : fabric.blocks()[first[0]].leaves) {
        int port = 0;
        for (const Link& link : fabric.links()) {
          const bool from_leaf = link.a.kind == Endpoint::Kind::kSwitch && link.a.id == leaf;
          if (!from_leaf) continue;
          const bool up = link.b.kind == Endpoint::Kind::kSwitch;
          const std::string peer =
              up ? fabric.switches()[link.b.id].name
                 : absl::StrCat(fabric.hosts()[fabric.nics()[link.b.id].host].name, "/",
                                fabric.nics()[link.b.id].name);
          v1::PortCounters* c = request.add_counters();
          c->set_endpoint(fabric.switches()[leaf].name);
          c->set_port(++port);
          c->set_peer(peer_override.empty() ? peer : peer_override);
          c->set_measured_unix_ms(absl::ToUnixMillis(at));
          c->set_tx_bytes(
              static_cast<uint64_t>(reading * 10 * share * link.bandwidth_gbps() * 1e9 / 8));
        }
      }
      grpc::ClientContext ctx;
      v1::ReportResponse response;
      grpc::Status status = stub->ReportPortCounters(&ctx, request, &response);
      if (!status.ok()) return status;
    }
    return grpc::Status::OK;
  };
  const grpc::Status bad = report(absl::Seconds(20), 0.9, "no-such-switch");
  EXPECT_EQ(bad.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(bad.error_message(), HasSubstr("counters[0].peer"));
  ASSERT_TRUE(report(absl::Seconds(200), 0.9).ok());  // stale: measured over a minute ago
  auto stale = client->Place(job, "");
  ASSERT_TRUE(stale.ok()) << stale.status();
  EXPECT_EQ(PlanBlocks(fabric, stale->plan()), first);

  ASSERT_TRUE(report(absl::Seconds(20), 0.9).ok());
  auto placed = client->Place(job, "");
  ASSERT_TRUE(placed.ok()) << placed.status();
  const std::vector<int32_t> after = PlanBlocks(fabric, placed->plan());
  EXPECT_EQ(std::find(after.begin(), after.end(), first[0]), after.end());
}

// A port nothing listens on: a listener bound and closed again (0 if none could be bound).
int DeadPort() {
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  std::unique_ptr<grpc::Server> probe = builder.BuildAndStart();
  if (probe == nullptr) return 0;
  probe->Shutdown();
  return port;
}

// A client given several daemons moves past one it cannot reach, and gives every
// Reserve an idempotency key so a Reserve sent again to the next daemon never holds twice.
TEST_F(ServiceTest, Service_ClientListMovesPastAnUnreachableDaemonWithIdempotentReserves) {
  StartServer();
  const int dead_port = DeadPort();
  ASSERT_GT(dead_port, 0);
  ClientOptions options;
  options.server = absl::StrCat("127.0.0.1:", dead_port, ", 127.0.0.1:", server_->port());
  options.timeout = absl::Seconds(10);
  absl::StatusOr<std::unique_ptr<TopoplaceClient>> client = TopoplaceClient::Connect(options);
  ASSERT_TRUE(client.ok()) << client.status();
  auto reserved = (*client)->Reserve("tp=8,pp=1,dp=2", "", 0);
  ASSERT_TRUE(reserved.ok()) << reserved.status();
  EXPECT_THAT(reserved->allocation().request_id(), ::testing::StartsWith("client-"));
  EXPECT_TRUE((*client)->ListAllocations().ok());
  // Only the dead one: unreachable, named.
  options.server = absl::StrCat("127.0.0.1:", dead_port);
  options.timeout = absl::Seconds(2);
  auto alone = TopoplaceClient::Connect(options);
  ASSERT_TRUE(alone.ok());
  absl::Status down = (*alone)->ListAllocations().status();
  EXPECT_TRUE(absl::IsUnavailable(down) || absl::IsDeadlineExceeded(down)) << down;
  EXPECT_THAT(std::string(down.message()), HasSubstr(absl::StrCat(dead_port)));
  // A malformed list is refused before any call.
  options.server = "127.0.0.1:1,,127.0.0.1:2";
  EXPECT_EQ(TopoplaceClient::Connect(options).status().code(), absl::StatusCode::kInvalidArgument);
}

// A daemon that is stopped or wedged (SIGSTOP, a deadlock): its port accepts connections
// in the kernel's backlog but nothing ever answers. Closed when destroyed.
class HungListener {
 public:
  HungListener() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        listen(fd_, 16) != 0 || getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      return;
    }
    port_ = ntohs(addr.sin_port);
  }
  ~HungListener() {
    if (fd_ >= 0) close(fd_);
  }
  HungListener(const HungListener&) = delete;
  HungListener& operator=(const HungListener&) = delete;
  int port() const { return port_; }  // 0 if it could not listen

 private:
  int fd_ = -1;
  int port_ = 0;
};

// Hardening finding 6: with the first daemon of the list hung, every call used to wait
// out its whole timeout there and fail (DEADLINE_EXCEEDED). Now a daemon that takes no
// connection within attempt_timeout is passed over for the next, which serves the call; a
// Reserve sent again carries the same idempotency key. Alone, the hung daemon is named.
TEST_F(ServiceTest, Service_ClientMovesPastAHungDaemonAfterTheAttemptDeadline) {
  StartServer();
  HungListener hung;
  ASSERT_GT(hung.port(), 0);
  ClientOptions options;
  options.server = absl::StrCat("127.0.0.1:", hung.port(), ",127.0.0.1:", server_->port());
  options.timeout = absl::Seconds(120);
  options.attempt_timeout = absl::Milliseconds(500);
  absl::StatusOr<std::unique_ptr<TopoplaceClient>> client = TopoplaceClient::Connect(options);
  ASSERT_TRUE(client.ok()) << client.status();
  auto reserved = (*client)->Reserve("tp=8,pp=1,dp=2", "", 0);
  ASSERT_TRUE(reserved.ok()) << reserved.status();
  EXPECT_EQ((*client)->LastAddress(), absl::StrCat("127.0.0.1:", server_->port()));
  EXPECT_TRUE((*client)->Commit(reserved->allocation().allocation_id(), "slurm:7").ok());
  auto listed = (*client)->ListAllocations();
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_EQ(listed->allocations_size(), 1);  // one Reserve, one allocation

  options.server = absl::StrCat("127.0.0.1:", hung.port());
  options.timeout = absl::Seconds(1);
  auto alone = TopoplaceClient::Connect(options);
  ASSERT_TRUE(alone.ok());
  absl::Status stuck = (*alone)->ListAllocations().status();
  EXPECT_TRUE(absl::IsDeadlineExceeded(stuck)) << stuck;
  EXPECT_THAT(std::string(stuck.message()), HasSubstr(absl::StrCat(hung.port())));
}

// Hardening finding 8: gRPC sets SO_REUSEPORT by default, so a second daemon on the same
// port used to start and take every other connection. Now it cannot bind, says so, and
// the first one keeps serving.
TEST_F(ServiceTest, Service_ASecondServerOnTheSamePortRefusesToStart) {
  StartServer();
  ServerConfig second = config_;
  second.listen = absl::StrCat("127.0.0.1:", server_->port());
  second.db_path = dir_.File("second.db");
  auto refused = TopoplaceServer::Start(second, clock_);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("cannot serve on"));
  EXPECT_TRUE(Client()->GetFabricSummary().ok());
}

// Hardening finding 8: a counter reading stamped in the future counted as fresh until that
// time came, pinning its switch as hot. Readings more than a minute ahead of the daemon's
// clock are refused, naming the field; one a few seconds ahead (skew) is taken.
TEST_F(ServiceTest, Service_ReadingsStampedInTheFutureAreRefused) {
  StartServer();
  auto client = Client();
  const int64_t now_ms = absl::ToUnixMillis(absl::Now());
  v1::ReportPortCountersRequest counters;
  counters.set_reporter("collector");
  v1::PortCounters* c = counters.add_counters();
  c->set_endpoint("b00-n000/mlx5_0");
  c->set_measured_unix_ms(now_ms + 3'600'000);
  absl::Status refused = client->ReportPortCounters(counters).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument) << refused;
  EXPECT_THAT(std::string(refused.message()), HasSubstr("counters[0].measured_unix_ms"));
  c->set_measured_unix_ms(now_ms + 5'000);
  EXPECT_TRUE(client->ReportPortCounters(counters).ok());
  v1::ReportProbeResultsRequest probes;
  probes.set_reporter("collector");
  v1::ProbeResult* p = probes.add_results();
  p->set_source("b00-n000/mlx5_0");
  p->set_target("b00-n001/mlx5_0");
  p->set_reachable(true);
  p->set_measured_unix_ms(now_ms + 86'400'000);
  EXPECT_THAT(std::string(client->ReportProbeResults(probes).status().message()),
              HasSubstr("results[0].measured_unix_ms"));
}

// Every RPC goes through the one client and its failover (house issue, point 4): with the
// first daemon of the list down, telemetry reports (the agent's probe results and
// counters), link health, a job's path, the allocations a link touches, the extender's
// look-up by external id and the topology queries are all served by the next one.
TEST_F(ServiceTest, Service_EveryClientCallMovesPastADaemonThatIsDown) {
  StartServer();
  const int dead_port = DeadPort();
  ASSERT_GT(dead_port, 0);
  ClientOptions options;
  options.server = absl::StrCat("127.0.0.1:", dead_port, ",127.0.0.1:", server_->port(),
                                ",127.0.0.1:", dead_port);
  options.timeout = absl::Seconds(10);
  absl::StatusOr<std::unique_ptr<TopoplaceClient>> connected = TopoplaceClient::Connect(options);
  ASSERT_TRUE(connected.ok()) << connected.status();
  TopoplaceClient& client = **connected;
  auto reserved = client.Reserve("tp=8,pp=1,dp=1", "", 0);
  ASSERT_TRUE(reserved.ok()) << reserved.status();
  const std::string id = reserved->allocation().allocation_id();
  ASSERT_TRUE(client.Commit(id, "k8s:default/gang").ok());
  const std::string host = reserved->allocation().gpus(0).host();

  v1::ReportProbeResultsRequest probes;
  probes.set_reporter("collector");
  v1::ProbeResult* probe = probes.add_results();
  probe->set_source(host + "/mlx5_0");
  probe->set_target(host == "b00-n001" ? "b00-n000/mlx5_0" : "b00-n001/mlx5_0");
  probe->set_reachable(true);
  probe->set_latency_us(4);
  auto probed = client.ReportProbeResults(probes);
  ASSERT_TRUE(probed.ok()) << probed.status();
  EXPECT_EQ(probed->accepted(), 1);

  v1::ReportPortCountersRequest counters;
  counters.set_reporter("collector");
  counters.add_counters()->set_endpoint(host + "/mlx5_0");
  auto counted = client.ReportPortCounters(counters);
  ASSERT_TRUE(counted.ok()) << counted.status();
  EXPECT_EQ(counted->accepted(), 1);

  v1::GetLinkHealthRequest health;
  health.set_endpoint(host + "/mlx5_0");
  auto links = client.GetLinkHealth(health);
  ASSERT_TRUE(links.ok()) << links.status();
  EXPECT_EQ(links->links_size(), 1);

  v1::GetJobPathRequest path;
  path.set_external_id("k8s:default/gang");
  auto job_path = client.GetJobPath(path);
  ASSERT_TRUE(job_path.ok()) << job_path.status();
  EXPECT_EQ(job_path->allocation().allocation_id(), id);

  v1::GetAffectedAllocationsRequest affected;
  affected.set_link(host + "/mlx5_0");
  auto touched = client.GetAffectedAllocations(affected);
  ASSERT_TRUE(touched.ok()) << touched.status();
  ASSERT_EQ(touched->allocations_size(), 1);
  EXPECT_EQ(touched->allocations(0).allocation_id(), id);

  auto by_external = client.GetAllocationByExternalId("k8s:default/gang");
  ASSERT_TRUE(by_external.ok()) << by_external.status();
  EXPECT_EQ(by_external->allocation_id(), id);
  EXPECT_TRUE(absl::IsNotFound(client.GetAllocationByExternalId("k8s:default/none").status()));

  v1::GetHostRequest get_host;
  get_host.set_host(host);
  EXPECT_TRUE(client.GetHost(get_host).ok());
  EXPECT_TRUE(client.ListDomains(v1::ListDomainsRequest()).ok());
  EXPECT_EQ(client.LastAddress(), absl::StrCat("127.0.0.1:", server_->port()));
}

// A name with several DNS records is one daemon per record: the client tries each, so a
// replica set behind one name fails over like a list. The records come from /etc/hosts,
// replaced for this test process only (a private mount namespace; needs root).
TEST_F(ServiceTest, Service_ClientTriesEveryRecordOfANameWithSeveral) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give this process its own /etc/hosts";
  ASSERT_EQ(unshare(CLONE_NEWNS), 0) << strerror(errno);
  ASSERT_EQ(mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr), 0) << strerror(errno);
  const std::string hosts = dir_.File("hosts");
  std::ofstream(hosts) << "127.0.0.1 localhost\n127.0.0.2 tp-replicas\n127.0.0.3 tp-replicas\n";
  ASSERT_EQ(mount(hosts.c_str(), "/etc/hosts", nullptr, MS_BIND, nullptr), 0) << strerror(errno);

  config_.listen = "127.0.0.3:0";  // the second record; nothing listens on the first
  StartServer();
  const std::string name = absl::StrCat("tp-replicas:", server_->port());
  const std::vector<client::DialTarget> targets = client::ResolveDaemon(name);
  ASSERT_EQ(targets.size(), 2u);
  EXPECT_EQ(targets[0].target, absl::StrCat("ipv4:127.0.0.2:", server_->port()));
  EXPECT_EQ(targets[1].target, absl::StrCat("ipv4:127.0.0.3:", server_->port()));
  EXPECT_EQ(client::ResolveDaemon("127.0.0.1:7469").size(), 1u);  // literals stay as given

  ClientOptions options;
  options.server = name;
  options.timeout = absl::Seconds(10);
  auto client = TopoplaceClient::Connect(options);
  ASSERT_TRUE(client.ok()) << client.status();
  auto reserved = (*client)->Reserve("tp=8,pp=1,dp=1", "", 0);
  ASSERT_TRUE(reserved.ok()) << reserved.status();
  EXPECT_THAT((*client)->LastAddress(), HasSubstr("127.0.0.3"));
  // Two records are two daemons: the Reserve carried an idempotency key.
  EXPECT_THAT(reserved->allocation().request_id(), ::testing::StartsWith("client-"));
}

TEST_F(ServiceTest, Service_ReserveCommitExplainReleaseRoundTrip) {
  StartServer();
  auto client = Client();
  auto reserved = client->Reserve("tp=8,pp=1,dp=2", "", 0);
  ASSERT_TRUE(reserved.ok()) << reserved.status();
  const v1::Allocation& a = reserved->allocation();
  EXPECT_EQ(a.state(), v1::ALLOCATION_STATE_RESERVED);
  EXPECT_EQ(a.gpus_size(), 16);
  EXPECT_EQ(a.priority(), 0) << "a spec without priority=";
  EXPECT_EQ(a.expires_unix_ms(), absl::ToUnixMillis(clock_.Now() + absl::Seconds(30)));

  // A second job never gets the reserved GPUs.
  auto other = client->Reserve("tp=8,pp=1,dp=2", "", 0);
  ASSERT_TRUE(other.ok()) << other.status();
  for (const std::string& gpu : GpuNames(other->allocation())) {
    EXPECT_EQ(GpuNames(a).count(gpu), 0u) << gpu;
  }

  auto committed = client->Commit(a.allocation_id(), "slurm:1001");
  ASSERT_TRUE(committed.ok()) << committed.status();
  EXPECT_EQ(committed->state(), v1::ALLOCATION_STATE_COMMITTED);
  EXPECT_EQ(committed->expires_unix_ms(), 0);

  auto explained = client->Explain(a.allocation_id());
  ASSERT_TRUE(explained.ok()) << explained.status();
  EXPECT_EQ(explained->plan_json(), reserved->plan().json());

  auto list = client->ListAllocations();
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->allocations_size(), 2);

  auto released = client->Release(a.allocation_id());
  ASSERT_TRUE(released.ok()) << released.status();
  EXPECT_EQ(released->state(), v1::ALLOCATION_STATE_RELEASED);
  EXPECT_EQ(client->ListAllocations()->allocations_size(), 1);
  EXPECT_EQ(client->GetAllocation(a.allocation_id())->state(), v1::ALLOCATION_STATE_RELEASED);
}

// On gb200-nvl72's 16 racks of 18 trays: 64 reservations of 4 trays, 16 busy trays in
// each rack, named in `busy`; each told it runs `run_seconds` (0: not told).
void LeaveTwoTraysFreePerRack(TopoplaceClient& client, std::set<std::string>& busy,
                              double run_seconds = 0) {
  for (int i = 0; i < 64; ++i) {
    v1::ReserveRequest request;
    request.set_job_spec("tp=4,pp=1,dp=4,gpus_per_node=4");
    if (run_seconds > 0) request.mutable_outlook()->set_run_seconds(run_seconds);
    auto small = client.Reserve(request);
    ASSERT_TRUE(small.ok()) << i << ": " << small.status();
    for (const v1::GpuSlot& g : small->allocation().gpus()) busy.insert(g.host());
  }
  ASSERT_EQ(busy.size(), 256u) << "16 trays busy in each rack";
}

// Jobs to come (issue 62): on gb200-nvl72 racks of 18 trays, 64 reservations of 4 trays
// leave 2 free in each of the 16 racks. A 32-tray job needs two whole racks; told that two
// 2-tray jobs wait behind it and that every busy tray frees up in an hour, it is refused
// (their waits, 2 h in all, outweigh its own hour); told nothing, it spreads over the 16.
TEST_F(ServiceTest, Service_AnOutlookOfWaitingJobsMakesALargeJobLeavePartlyUsedRacksToThem) {
  config_.fabric = "preset:gb200-nvl72";
  StartServer();
  auto client = Client();
  std::set<std::string> busy;
  ASSERT_NO_FATAL_FAILURE(LeaveTwoTraysFreePerRack(*client, busy));
  v1::ReserveRequest large;
  large.set_job_spec("tp=4,pp=4,dp=8,gpus_per_node=4,model=70b");
  large.mutable_outlook()->add_waiting_nodes(2);
  large.mutable_outlook()->add_waiting_nodes(2);
  for (const std::string& host : busy)
    (*large.mutable_outlook()->mutable_host_free_in_seconds())[host] = 3600;
  auto refused = client->Reserve(large);
  ASSERT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted) << refused.status();
  EXPECT_THAT(refused.status().message(), HasSubstr("2 waiting jobs could start in now"));
  EXPECT_THAT(refused.status().message(),
              HasSubstr("it waits for whole domains, expected in 1.0 h"));

  v1::ReserveRequest bad = large;
  (*bad.mutable_outlook()->mutable_host_free_in_seconds())["no-such-tray"] = 1;
  auto unknown = client->Reserve(bad);
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(unknown.status().message(), HasSubstr("no host 'no-such-tray'"));
  bad = large;
  bad.mutable_outlook()->set_waiting_nodes(1, 0);
  auto empty_job = client->Reserve(bad);
  EXPECT_EQ(empty_job.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(empty_job.status().message(), HasSubstr("outlook.waiting_nodes[1] is 0"));

  large.clear_outlook();
  auto spread = client->Reserve(large);
  ASSERT_TRUE(spread.ok()) << spread.status();
  EXPECT_EQ(spread->allocation().gpus_size(), 128);
}

// Bounded waiting (issue 62): the same 16 racks with 2 free trays each. Told that the job
// runs 20 hours and that the busy trays free up in an hour, a 32-tray job in 16-tray
// stages waits for two whole racks rather than split its DP groups over 16 racks' NICs;
// told it runs a minute, it spreads now. The one job behind it is larger than a rack, so
// no fragment is left to it.
TEST_F(ServiceTest, Service_AJobThatRunsLongWaitsForWholeRacksWhenTheyFreeUpSooner) {
  config_.fabric = "preset:gb200-nvl72";
  StartServer();
  auto client = Client();
  std::set<std::string> busy;
  ASSERT_NO_FATAL_FAILURE(LeaveTwoTraysFreePerRack(*client, busy));
  v1::ReserveRequest large;
  large.set_job_spec("tp=4,pp=4,dp=8,gpus_per_node=4,model=70b");
  large.mutable_outlook()->add_waiting_nodes(40);
  for (const std::string& host : busy)
    (*large.mutable_outlook()->mutable_host_free_in_seconds())[host] = 3600;
  large.mutable_outlook()->set_run_seconds(20 * 3600);
  auto refused = client->Reserve(large);
  ASSERT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted) << refused.status();
  EXPECT_THAT(refused.status().message(), HasSubstr("on 2 wholly free NVLink domains"));
  EXPECT_THAT(refused.status().message(), HasSubstr("expected in 1.0 h"));

  v1::ReserveRequest bad = large;
  bad.mutable_outlook()->set_run_seconds(-1);
  auto negative = client->Reserve(bad);
  EXPECT_EQ(negative.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(negative.status().message(), HasSubstr("outlook.run_seconds is -1"));

  large.mutable_outlook()->set_run_seconds(60);
  auto spread = client->Reserve(large);
  ASSERT_TRUE(spread.ok()) << spread.status();
  EXPECT_EQ(spread->allocation().gpus_size(), 128);
}

// The daemon's own outlook (issue 62, point 3): the 64 small jobs were reserved with an
// hour's run, so the ledger knows when their trays free up. A caller that sends only its
// queue and its job's run (as an adapter that knows no other job's end) gets the same
// answer as one that names every tray's end: wait an hour for two whole racks.
TEST_F(ServiceTest, Service_TheLedgersExpectedEndsAreTheOutlookOfHostsTheRequestDoesNotName) {
  config_.fabric = "preset:gb200-nvl72";
  StartServer();
  auto client = Client();
  std::set<std::string> busy;
  ASSERT_NO_FATAL_FAILURE(LeaveTwoTraysFreePerRack(*client, busy, /*run_seconds=*/3600));
  auto list = client->ListAllocations();
  ASSERT_TRUE(list.ok()) << list.status();
  for (const v1::Allocation& a : list->allocations()) {
    EXPECT_NEAR(a.expected_end_unix_ms() - a.created_unix_ms(), 3600 * 1000, 1)
        << a.allocation_id();
  }
  v1::ReserveRequest large;
  large.set_job_spec("tp=4,pp=4,dp=8,gpus_per_node=4,model=70b");
  large.mutable_outlook()->add_waiting_nodes(40);
  large.mutable_outlook()->set_run_seconds(20 * 3600);
  auto refused = client->Reserve(large);
  ASSERT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted) << refused.status();
  EXPECT_THAT(refused.status().message(), HasSubstr("on 2 wholly free NVLink domains"));
  EXPECT_THAT(refused.status().message(), HasSubstr("expected in 1.0 h"));

  // What the request names wins over the ledger: every tray busy for 30 hours, longer
  // than the run would lose split, so it spreads now.
  for (const std::string& host : busy)
    (*large.mutable_outlook()->mutable_host_free_in_seconds())[host] = 30 * 3600;
  auto spread = client->Reserve(large);
  ASSERT_TRUE(spread.ok()) << spread.status();
  EXPECT_EQ(spread->allocation().gpus_size(), 128);
  EXPECT_NEAR(spread->allocation().expected_end_unix_ms() - spread->allocation().created_unix_ms(),
              20 * 3600 * 1000, 1);

  v1::ReserveRequest forever = large;
  forever.mutable_outlook()->set_run_seconds(1e12);
  auto too_long = client->Reserve(forever);
  EXPECT_EQ(too_long.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(too_long.status().message(), HasSubstr("(100 years)"));
}

TEST_F(ServiceTest, Service_ConcurrentReservesNeverShareAGpu) {
  StartServer();
  // 6 clients x 12 jobs of 2 nodes: 144 nodes wanted, 128 exist, so the fabric fills up
  // and late reservations must be refused rather than doubled up.
  std::vector<std::thread> clients;
  std::mutex mu;
  std::vector<v1::Allocation> granted;
  size_t refused = 0;
  for (int c = 0; c < 6; ++c) {
    clients.emplace_back([&] {
      auto client = Client();
      for (int i = 0; i < 12; ++i) {
        auto r = client->Reserve("tp=8,pp=1,dp=2", "", 0);
        std::lock_guard<std::mutex> lock(mu);
        if (r.ok()) {
          granted.push_back(r->allocation());
        } else {
          EXPECT_TRUE(r.status().code() == absl::StatusCode::kResourceExhausted ||
                      r.status().code() == absl::StatusCode::kAborted)
              << r.status();
          ++refused;
        }
      }
    });
  }
  for (std::thread& t : clients) t.join();
  std::set<std::string> held;
  for (const v1::Allocation& a : granted) {
    for (const std::string& gpu : GpuNames(a)) EXPECT_TRUE(held.insert(gpu).second) << gpu;
  }
  EXPECT_EQ(granted.size() + refused, 72u);
  // Whatever lost a race was refused, not doubled up: filling the rest one at a time ends
  // at exactly 128 nodes / 2 per job.
  auto client = Client();
  size_t total = granted.size();
  while (client->Reserve("tp=8,pp=1,dp=2", "", 0).ok()) ++total;
  EXPECT_EQ(total, 64u);
}

TEST_F(ServiceTest, Service_ExpiredReservationIsReclaimedAndCannotBeCommitted) {
  StartServer();
  auto client = Client();
  auto reserved = client->Reserve("tp=8,pp=1,dp=1", "", 10);
  ASSERT_TRUE(reserved.ok()) << reserved.status();
  clock_.Advance(absl::Seconds(11));
  auto commit = client->Commit(reserved->allocation().allocation_id(), "slurm:5");
  EXPECT_EQ(commit.status().code(), absl::StatusCode::kFailedPrecondition) << commit.status();
  EXPECT_EQ(client->ListAllocations()->allocations_size(), 0);
}

v1::ReserveRequest KeyedReserve(const std::string& job, const std::string& request_id) {
  v1::ReserveRequest request;
  request.set_job_spec(job);
  request.set_request_id(request_id);
  return request;
}

TEST_F(ServiceTest, Service_ReserveWithARequestIdIsIdempotentEvenAcrossRestart) {
  StartServer();
  std::string id;
  std::set<std::string> gpus;
  {
    auto client = Client();
    auto first = client->Reserve(KeyedReserve("tp=8,pp=1,dp=2", "slurm:77/attempt-1"));
    ASSERT_TRUE(first.ok()) << first.status();
    EXPECT_FALSE(first->replayed());
    id = first->allocation().allocation_id();
    gpus = GpuNames(first->allocation());
    EXPECT_EQ(first->allocation().request_id(), "slurm:77/attempt-1");
    auto retry = client->Reserve(KeyedReserve("tp=8,pp=1,dp=2", "slurm:77/attempt-1"));
    ASSERT_TRUE(retry.ok()) << retry.status();
    EXPECT_TRUE(retry->replayed());
    EXPECT_EQ(retry->allocation().allocation_id(), id);
    EXPECT_EQ(retry->plan().json(), first->plan().json());
    EXPECT_EQ(client->ListAllocations()->allocations_size(), 1);
  }
  server_->Shutdown();
  server_.reset();
  StartServer();
  auto client = Client();
  auto after_restart = client->Reserve(KeyedReserve("tp=8,pp=1,dp=2", "slurm:77/attempt-1"));
  ASSERT_TRUE(after_restart.ok()) << after_restart.status();
  EXPECT_TRUE(after_restart->replayed());
  EXPECT_EQ(after_restart->allocation().allocation_id(), id);
  EXPECT_EQ(GpuNames(after_restart->allocation()), gpus);
  EXPECT_EQ(client->ListAllocations()->allocations_size(), 1);

  auto other_job = client->Reserve(KeyedReserve("tp=8,pp=1,dp=4", "slurm:77/attempt-1"));
  EXPECT_EQ(other_job.status().code(), absl::StatusCode::kAlreadyExists) << other_job.status();
  EXPECT_NE(other_job.status().message().find("request_id"), std::string::npos);
  EXPECT_EQ(client->ListAllocations()->allocations_size(), 1);
}

TEST_F(ServiceTest, Service_ConcurrentRetriesWithOneRequestIdHoldOneAllocation) {
  StartServer();
  std::vector<std::thread> threads;
  std::vector<std::string> ids(6);
  for (size_t t = 0; t < ids.size(); ++t) {
    threads.emplace_back([&, t] {
      auto r = Client()->Reserve(KeyedReserve("tp=8,pp=1,dp=4", "pg/gang-1"));
      if (r.ok()) ids[t] = r->allocation().allocation_id();
      EXPECT_TRUE(r.ok()) << r.status();
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& id : ids) EXPECT_EQ(id, ids[0]);
  auto live = Client()->ListAllocations();
  ASSERT_TRUE(live.ok());
  EXPECT_EQ(live->allocations_size(), 1);
}

TEST_F(ServiceTest, Service_RenewExtendsAReservationAndRefusesCommits) {
  StartServer();
  auto client = Client();
  auto reserved = client->Reserve("tp=8,pp=1,dp=1", "", 10);
  ASSERT_TRUE(reserved.ok()) << reserved.status();
  const std::string id = reserved->allocation().allocation_id();
  clock_.Advance(absl::Seconds(8));
  auto renewed = client->Renew(id, 120);
  ASSERT_TRUE(renewed.ok()) << renewed.status();
  EXPECT_EQ(renewed->state(), v1::ALLOCATION_STATE_RESERVED);
  EXPECT_GT(renewed->expires_unix_ms(), reserved->allocation().expires_unix_ms());
  clock_.Advance(absl::Seconds(60));  // past the first TTL, inside the renewed one
  ASSERT_TRUE(client->Commit(id, "slurm:12").ok());
  auto on_commit = client->Renew(id, 120);
  EXPECT_EQ(on_commit.status().code(), absl::StatusCode::kFailedPrecondition) << on_commit.status();
  EXPECT_EQ(client->Renew(id, -1).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(client->Renew("alloc-404", 60).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(ServiceTest, Service_RestartRebuildsAllocationsFromTheDatabase) {
  StartServer();
  std::string id;
  std::set<std::string> gpus;
  {
    auto client = Client();
    auto reserved = client->Reserve("tp=8,pp=1,dp=4,priority=900", "", 0);
    ASSERT_TRUE(reserved.ok()) << reserved.status();
    EXPECT_EQ(reserved->allocation().priority(), 900);
    id = reserved->allocation().allocation_id();
    gpus = GpuNames(reserved->allocation());
    ASSERT_TRUE(client->Commit(id, "pg/train-7").ok());
  }
  server_->Shutdown();
  server_.reset();
  StartServer();
  auto client = Client();
  auto a = client->GetAllocation(id);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->state(), v1::ALLOCATION_STATE_COMMITTED);
  EXPECT_EQ(a->external_id(), "pg/train-7");
  EXPECT_EQ(GpuNames(*a), gpus);
  EXPECT_EQ(a->priority(), 900) << "the priority is stored with the allocation";
  EXPECT_EQ(client->ListAllocations()->allocations(0).priority(), 900);
  // The rebuilt ledger still keeps those GPUs out of new plans.
  auto next = client->Reserve("tp=8,pp=1,dp=4", "", 0);
  ASSERT_TRUE(next.ok()) << next.status();
  for (const std::string& gpu : GpuNames(next->allocation())) EXPECT_EQ(gpus.count(gpu), 0u);
}

// Place with may_preempt over loopback gRPC: two blocks of four 2-GPU hosts, a 3-host job
// of priority 1 in one and a 3-host job of priority 50 in the other. A 4-host job that
// must stay in one block fits nowhere; at priority 10 the daemon names the priority-1
// allocation (and its Slurm job) as the one to stop and plans the job into its block; at
// priority 1 nothing may go. Nothing is released by asking.
TEST_F(ServiceTest, Service_PlaceMayPreemptNamesTheLowerPriorityAllocationToStop) {
  config_.fabric = dir_.File("tiny.json");
  ASSERT_TRUE(
      SaveFabricFile(**GenerateClos(::topoplace::testing::TinyClos(2, 4)), config_.fabric).ok());
  StartServer();
  auto client = Client();
  auto low = client->Reserve("tp=2,pp=1,dp=3,gpus_per_node=2,priority=1", "", 0);
  ASSERT_TRUE(low.ok()) << low.status();
  ASSERT_TRUE(client->Commit(low->allocation().allocation_id(), "slurm:41").ok());
  auto high = client->Reserve("tp=2,pp=1,dp=3,gpus_per_node=2,priority=50", "", 0);
  ASSERT_TRUE(high.ok()) << high.status();
  const std::vector<int32_t> low_blocks = PlanBlocks(server_->fabric(), low->plan());
  ASSERT_EQ(low_blocks.size(), 1u);
  ASSERT_NE(PlanBlocks(server_->fabric(), high->plan()), low_blocks);

  const std::string job = "tp=2,pp=1,dp=4,gpus_per_node=2,max_tier=block,priority=10";
  EXPECT_EQ(client->Place(job, "").status().code(), absl::StatusCode::kResourceExhausted);
  auto preempting = client->Place(job, "", /*may_preempt=*/true);
  ASSERT_TRUE(preempting.ok()) << preempting.status();
  ASSERT_EQ(preempting->victims_size(), 1);
  EXPECT_EQ(preempting->victims(0).allocation_id(), low->allocation().allocation_id());
  EXPECT_EQ(preempting->victims(0).external_id(), "slurm:41");
  EXPECT_EQ(preempting->victims(0).priority(), 1);
  EXPECT_THAT(preempting->victims(0).reason(), HasSubstr("priority 1 < 10"));
  EXPECT_EQ(preempting->preemption_domain(), absl::StrCat("block ", low_blocks[0]));
  EXPECT_EQ(PlanBlocks(server_->fabric(), preempting->plan()), low_blocks);
  EXPECT_EQ(client->ListAllocations()->allocations_size(), 2) << "asking stops nothing";

  auto equal = client->Place("tp=2,pp=1,dp=4,gpus_per_node=2,max_tier=block,priority=1", "", true);
  EXPECT_EQ(equal.status().code(), absl::StatusCode::kResourceExhausted) << equal.status();
}

// Hardening finding 8: a started Slurm job of ~460 nodes sent its nodes inline as the
// spec's hosts=, past the 4 KiB spec limit, and ran without a plan. The nodes now travel in
// the request's hosts field: a 460-node job reserves on exactly the hosts it names.
TEST_F(ServiceTest, Service_AReserveNamesHundredsOfHostsBesideItsSpec) {
  config_.fabric = "preset:rail-28k";
  StartServer();
  auto client = Client();
  auto placed = client->Place("tp=8,pp=4,dp=115", "");
  ASSERT_TRUE(placed.ok()) << placed.status();
  nlohmann::json plan = nlohmann::json::parse(placed->plan().json());
  std::vector<std::string> hosts = plan["hosts"].get<std::vector<std::string>>();
  ASSERT_EQ(hosts.size(), 460u);
  std::reverse(hosts.begin(), hosts.end());
  // The old way: inline, the spec is too long.
  auto inline_spec = client->Place(
      absl::StrCat("tp=8,pp=4,dp=115,mode=soft,hosts=", absl::StrJoin(hosts, ",")), "");
  EXPECT_EQ(inline_spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(inline_spec.status().message()), HasSubstr("at most 4096 bytes"));

  v1::ReserveRequest request;
  request.set_job_spec("tp=8,pp=4,dp=115,mode=soft");
  request.set_request_id("slurm-start:4242");
  request.mutable_hosts()->Assign(hosts.begin(), hosts.end());
  auto reserved = client->Reserve(request);
  ASSERT_TRUE(reserved.ok()) << reserved.status();
  std::set<std::string> used;
  for (const v1::GpuSlot& g : reserved->allocation().gpus()) used.insert(g.host());
  EXPECT_EQ(used, std::set<std::string>(hosts.begin(), hosts.end()));
  // Asked again with the same key and hosts, the same allocation comes back.
  auto again = client->Reserve(request);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->replayed());

  // Bad entries are named; hosts in both places are refused.
  v1::ReserveRequest bad = request;
  bad.set_request_id("");
  bad.set_hosts(3, "b00-n001 dp=2");
  auto refused = client->Reserve(bad);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("hosts[3]"));
  v1::ReserveRequest both = request;
  both.set_request_id("");
  both.set_job_spec(absl::StrCat("tp=8,pp=1,dp=1,hosts=", hosts[0]));
  auto twice = client->Reserve(both);
  EXPECT_EQ(twice.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(twice.status().message()), HasSubstr("not both"));
  EXPECT_EQ(client->ListAllocations()->allocations_size(), 1);
}

// A plain TCP connection from `source` (a loopback address) to the server; -1 on failure.
int ConnectFrom(const char* source, int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in from{};
  from.sin_family = AF_INET;
  inet_pton(AF_INET, source, &from.sin_addr);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof(from)) != 0 ||
      connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)) != 0) {
    if (fd >= 0) close(fd);
    return -1;
  }
  return fd;
}

// Whether the server closed `fd` within `wait` (it never sends first on an idle one).
bool ClosedWithin(int fd, std::chrono::milliseconds wait) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, static_cast<int>(wait.count())) <= 0) return false;
  char byte = 0;
  return recv(fd, &byte, 1, MSG_DONTWAIT) == 0;
}

// Hardening finding 4: 1,030 idle connections used up the daemon's descriptors and gRPC
// never accepted again. With a connection limit (connection_relay.h) one address holds at
// most its share, a further connection from it is closed at once, other clients are
// served, and the address gets in again once its connections close.
TEST_F(ServiceTest, Service_AConnectionLimitKeepsOneAddressFromTakingEveryConnection) {
  config_.max_connections = 16;
  config_.max_connections_per_peer = 4;
  StartServer();
  std::vector<int> held;
  for (int i = 0; i < 4; ++i) {
    held.push_back(ConnectFrom("127.0.0.2", server_->port()));
    ASSERT_GE(held.back(), 0);
  }
  for (int fd : held) EXPECT_FALSE(ClosedWithin(fd, std::chrono::milliseconds(200)));
  const int fifth = ConnectFrom("127.0.0.2", server_->port());
  ASSERT_GE(fifth, 0);  // the kernel completes the handshake; the relay then closes it
  EXPECT_TRUE(ClosedWithin(fifth, std::chrono::seconds(5)));
  close(fifth);
  // Another client is served meanwhile, through the same listener.
  auto reserved = Client()->Reserve("tp=8,pp=1,dp=1", "", 0);
  ASSERT_TRUE(reserved.ok()) << reserved.status();
  for (int fd : held) close(fd);
  bool admitted = false;
  for (int attempt = 0; attempt < 25 && !admitted; ++attempt) {
    const int again = ConnectFrom("127.0.0.2", server_->port());
    ASSERT_GE(again, 0);
    admitted = !ClosedWithin(again, std::chrono::milliseconds(200));
    close(again);
  }
  EXPECT_TRUE(admitted) << "the address stayed refused after its connections closed";
}

TEST_F(ServiceTest, Service_BadRequestsGetPreciseCodesAndTheDaemonStaysUp) {
  StartServer();
  auto client = Client();
  auto unknown = client->Commit("alloc-999", "slurm:1");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(unknown.status().message().find("alloc-999"), std::string::npos);

  auto negative_ttl = client->Reserve("tp=8,pp=1,dp=1", "", -5);
  EXPECT_EQ(negative_ttl.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(negative_ttl.status().message().find("ttl_seconds"), std::string::npos);

  auto bad_degrees = client->Place("tp=3,pp=1,dp=5", "");
  EXPECT_EQ(bad_degrees.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad_degrees.status().message().find("job_spec"), std::string::npos)
      << bad_degrees.status();

  auto too_big = client->Place("tp=8,pp=1,dp=4096", "");
  EXPECT_EQ(too_big.status().code(), absl::StatusCode::kResourceExhausted) << too_big.status();

  auto long_spec = client->Place(std::string(5000, 'x'), "");
  EXPECT_EQ(long_spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(long_spec.status().message().find("job_spec: at most 4096 bytes"), std::string::npos)
      << long_spec.status();

  auto missing = client->Commit("", "slurm:1");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(missing.status().message().find("allocation_id"), std::string::npos);

  // A 100 MB message is refused by gRPC before it reaches a handler.
  auto huge = client->Place(std::string(100 << 20, 'x'), "");
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kResourceExhausted) << huge.status();

  // Still serving, and nothing was half-applied.
  EXPECT_TRUE(client->Place("tp=8,pp=1,dp=1", "").ok());
  EXPECT_EQ(client->ListAllocations()->allocations_size(), 0);
}

TEST_F(ServiceTest, Service_MutationsNeedTheBearerTokenWhileReadsStayOpen) {
  WriteToken(kToken);
  StartServer();
  auto anonymous = Client();
  EXPECT_TRUE(anonymous->Place("tp=8,pp=1,dp=1", "").ok());
  EXPECT_TRUE(anonymous->ListAllocations().ok());
  const absl::Status refused = anonymous->Reserve("tp=8,pp=1,dp=1", "", 0).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnauthenticated);
  // It says what this daemon accepts, and only that.
  EXPECT_THAT(std::string(refused.message()),
              HasSubstr("'authorization: Bearer <token>' metadata"));
  EXPECT_THAT(std::string(refused.message()), Not(HasSubstr("certificate")));
  EXPECT_THAT(std::string(refused.message()), Not(HasSubstr("MUNGE")));
  EXPECT_EQ(Client("wrong")->Reserve("tp=8,pp=1,dp=1", "", 0).status().code(),
            absl::StatusCode::kPermissionDenied);
  auto allowed = Client(kToken)->Reserve("tp=8,pp=1,dp=1", "", 0);
  ASSERT_TRUE(allowed.ok()) << allowed.status();
  EXPECT_EQ(anonymous->Release(allowed->allocation().allocation_id()).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(anonymous->Renew(allowed->allocation().allocation_id(), 60).status().code(),
            absl::StatusCode::kUnauthenticated);
}

TEST_F(ServiceTest, Service_AuthenticatedReadAccessClosesReadsToo) {
  WriteToken(kToken);
  config_.read_access = "authenticated";
  StartServer();
  EXPECT_EQ(Client()->ListAllocations().status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(Client()->GetFabricSummary().status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE(Client(kToken)->ListAllocations().ok());
}

TEST_F(ServiceTest, Service_TopologyAnswersHostsPathsAndFreeCapacity) {
  StartServer();
  auto client = Client();
  auto summary = client->GetFabricSummary();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->name(), "superpod-4su");
  EXPECT_EQ(summary->gpus(), 1024);
  EXPECT_EQ(summary->blocks(), 4);
  ASSERT_TRUE(client->Reserve("tp=8,pp=1,dp=1", "", 0).ok());

  auto stub = v1::Topology::NewStub(grpc::CreateChannel(absl::StrCat("127.0.0.1:", server_->port()),
                                                        grpc::InsecureChannelCredentials()));
  {
    grpc::ClientContext ctx;
    v1::ListDomainsRequest request;
    v1::ListDomainsResponse domains;
    ASSERT_TRUE(stub->ListDomains(&ctx, request, &domains).ok());
    int block_free = 0;
    for (const v1::Domain& d : domains.domains()) {
      if (d.kind() == v1::Domain::KIND_BLOCK) block_free += d.free_gpus();
    }
    EXPECT_EQ(block_free, 1024 - 8);
  }
  {
    grpc::ClientContext ctx;
    v1::GetPathRequest request;
    request.set_gpu_a("b00-n000/gpu0");
    request.set_gpu_b("b00-n001/gpu0");
    v1::GetPathResponse path;
    grpc::Status s = stub->GetPath(&ctx, request, &path);
    ASSERT_TRUE(s.ok()) << s.error_message();
    EXPECT_EQ(path.tier(), v1::TIER_LEAF);
    EXPECT_EQ(path.switch_hops(), 1);
    EXPECT_EQ(path.leaf_a(), path.leaf_b());
  }
  {
    grpc::ClientContext ctx;
    v1::GetPathRequest request;
    request.set_gpu_a("b00-n000");
    v1::GetPathResponse path;
    grpc::Status s = stub->GetPath(&ctx, request, &path);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(s.error_message().find("gpu_a"), std::string::npos);
  }
  {
    grpc::ClientContext ctx;
    v1::WatchFabricRequest request;
    auto reader = stub->WatchFabric(&ctx, request);
    v1::FabricSummary first;
    ASSERT_TRUE(reader->Read(&first));
    EXPECT_EQ(first.version(), 1u);
    ctx.TryCancel();
    v1::FabricSummary ignored;
    while (reader->Read(&ignored)) {
    }
    EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
  }
}

TEST_F(ServiceTest, Service_TelemetryReportsAreStoredAndCounted) {
  StartServer();
  auto client = Client();
  auto stub = v1::Telemetry::NewStub(grpc::CreateChannel(
      absl::StrCat("127.0.0.1:", server_->port()), grpc::InsecureChannelCredentials()));
  v1::ReportPortCountersRequest report;
  report.set_reporter("b00-n000");
  v1::PortCounters* c = report.add_counters();
  c->set_endpoint("b00-n000/mlx5_0");
  c->set_rx_errors(3);
  {
    grpc::ClientContext ctx;
    v1::ReportResponse response;
    ASSERT_TRUE(stub->ReportPortCounters(&ctx, report, &response).ok());
    EXPECT_EQ(response.accepted(), 1);
  }
  {
    grpc::ClientContext ctx;
    v1::GetLinkHealthRequest request;
    request.set_endpoint("b00-n000/mlx5_0");
    v1::GetLinkHealthResponse health;
    ASSERT_TRUE(stub->GetLinkHealth(&ctx, request, &health).ok());
    ASSERT_EQ(health.links_size(), 1);
    EXPECT_EQ(health.links(0).reports(), 1);
    EXPECT_EQ(health.links(0).state(), "up");
  }
  {
    report.mutable_counters(0)->clear_endpoint();
    grpc::ClientContext ctx;
    v1::ReportResponse response;
    grpc::Status s = stub->ReportPortCounters(&ctx, report, &response);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(s.error_message().find("counters[0].endpoint"), std::string::npos);
  }
}

TEST_F(ServiceTest, Service_MutualTlsLetsCertifiedClientsMutateAndRefusesOthers) {
  auto certs = testing::MakeTestCertificates(dir_.path());
  ASSERT_TRUE(certs.ok()) << certs.status();
  config_.tls_cert_file = certs->server_cert;
  config_.tls_key_file = certs->server_key;
  config_.tls_client_ca_file = certs->ca_cert;
  StartServer();
  auto reserved = Client(TlsOptions(*certs, true))->Reserve("tp=8,pp=1,dp=1", "", 0);
  EXPECT_TRUE(reserved.ok()) << reserved.status();
  // No client certificate, or no TLS at all: the handshake is refused.
  EXPECT_EQ(Client(TlsOptions(*certs, false))->ListAllocations().status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(Client()->ListAllocations().status().code(), absl::StatusCode::kUnavailable);
}

TEST_F(ServiceTest, Service_TlsListenerWithTokenStillNeedsTheTokenToMutate) {
  auto certs = testing::MakeTestCertificates(dir_.path());
  ASSERT_TRUE(certs.ok()) << certs.status();
  config_.tls_cert_file = certs->server_cert;
  config_.tls_key_file = certs->server_key;
  WriteToken(kToken);
  StartServer();
  EXPECT_TRUE(Client(TlsOptions(*certs, false))->ListAllocations().ok());
  EXPECT_EQ(Client(TlsOptions(*certs, false))->Reserve("tp=8,pp=1,dp=1", "", 0).status().code(),
            absl::StatusCode::kUnauthenticated);
  auto reserved = Client(TlsOptions(*certs, false, kToken))->Reserve("tp=8,pp=1,dp=1", "", 0);
  EXPECT_TRUE(reserved.ok()) << reserved.status();
}

TEST_F(ServiceTest, Service_TokenFileReadableByEveryoneOrTooShortIsRefused) {
  WriteToken(kToken, 0644);
  auto world_readable = TopoplaceServer::Start(config_, clock_);
  EXPECT_EQ(world_readable.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(world_readable.status().message(), HasSubstr("chmod"));

  WriteToken("x");
  auto short_token = TopoplaceServer::Start(config_, clock_);
  EXPECT_EQ(short_token.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(short_token.status().message(), HasSubstr("at least 16 characters"));

  WriteToken(kToken, 0640);  // group-readable (the service's group) is fine
  StartServer();
}

TEST_F(ServiceTest, Service_ExternalIdWithNewlinesOrEscapesIsRefusedAndNothingChanges) {
  StartServer();
  auto client = Client();
  auto reserved = client->Reserve("tp=8,pp=1,dp=1", "", 0);
  ASSERT_TRUE(reserved.ok()) << reserved.status();
  const std::string id = reserved->allocation().allocation_id();
  for (const std::string bad : {"slurm:1\nalloc-9 committed", "k8s:\x1b[31mred"}) {
    auto commit = client->Commit(id, bad);
    EXPECT_EQ(commit.status().code(), absl::StatusCode::kInvalidArgument) << commit.status();
    EXPECT_THAT(std::string(commit.status().message()),
                HasSubstr("external_id: control character"));
  }
  EXPECT_EQ(client->GetAllocation(id)->state(), v1::ALLOCATION_STATE_RESERVED);
  EXPECT_EQ(client->Reserve("tp=8,pp=1,dp=1\x1b", "", 0).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// The daemon places with PXN as NCCL runs: a tp=4 job that Slurm or Kubernetes submits on
// a rail-plane fabric is placed, not refused for want of a network path.
TEST_F(ServiceTest, Service_Tp4JobOnARailPlaneFabricIsReserved) {
  config_.fabric = "preset:rail-28k";
  StartServer();
  auto reserved = Client()->Reserve("tp=4,pp=4,dp=64", "", 0);
  EXPECT_TRUE(reserved.ok()) << reserved.status();
}

TEST_F(ServiceTest, Service_MalformedProtobufGetsInvalidArgumentNamingTheMessage) {
  StartServer();
  auto channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", server_->port()),
                                     grpc::InsecureChannelCredentials());
  grpc::GenericStub stub(channel);
  // Field 1 as a length-delimited string whose length runs past the end of the bytes.
  const char garbage[] = {0x0a, 0x7f, 'x'};
  grpc::Slice slice(garbage, sizeof(garbage));
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  grpc::ClientContext ctx;
  absl::Notification done;
  grpc::Status status;
  stub.UnaryCall(&ctx, "/topoplace.v1.Placement/Reserve", grpc::StubOptions(), &request, &response,
                 [&](grpc::Status s) {
                   status = std::move(s);
                   done.Notify();
                 });
  done.WaitForNotification();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("topoplace.v1.ReserveRequest"));
  // Nothing was reserved, and the daemon still serves.
  EXPECT_EQ(Client()->ListAllocations()->allocations_size(), 0);
}

TEST_F(ServiceTest, Service_BadConfigurationIsRefusedBeforeServing) {
  config_.tls_cert_file = dir_.File("cert.pem");  // key missing
  auto server = TopoplaceServer::Start(config_, clock_);
  EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument);
  config_.tls_cert_file.clear();
  config_.token_file = dir_.File("no-such-token");
  EXPECT_EQ(TopoplaceServer::Start(config_, clock_).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace topoplace::server
