// The console's documents and HTTP surface on a daemon's parts (a SQLite ledger behind the
// observed ledger, the telemetry store, a small fabric), without a browser: what each
// document says about the fabric and the allocations, the errors as JSON, the headers that
// keep names from running as script, the event stream's change after a ledger change, and
// the token rule of authenticated reads. The browser end to end is
// tests/integration/console/console_browser_test.cc.
#include "api/server/console/console_server.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/numbers.h"
#include "api/server/adapters/observed_ledger.h"
#include "api/server/console/console_views.h"
#include "nlohmann/json.hpp"
#include "scheduler/ledger/clock.h"
#include "store/sqlite/sqlite_ledger.h"
#include "store/sqlite/telemetry_report_store.h"
#include "tests/integration/service/support/temp_dir.h"
#include "tests/integration/service/support/test_certificates.h"
#include "tests/testing/fabrics.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::server {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

class ConsoleServerTest : public ::testing::Test {
 protected:
  ConsoleServerTest() : clock_(absl::FromUnixSeconds(1'700'000'000)) {
    // Two blocks of two hosts with 8 GPUs each.
    fabric_ = *GenerateClos(testing::TinyClos(/*blocks=*/2, /*nodes=*/2, /*gpus=*/8, /*rails=*/8));
    inner_ = *store::SqliteLedger::Open(dir_.File("ledger.db"), fabric_, clock_);
    ledger_ = std::make_unique<ObservedLedger>(*inner_,
                                               [this] { feed_.Publish(ChangeFeed::kAllocations); });
    telemetry_ =
        *store::TelemetryReportStore::Open(dir_.File("telemetry.db"), store::Durability::kNormal);
    context_.fabric = fabric_;
    context_.ledger = ledger_.get();
    context_.telemetry = telemetry_.get();
  }
  ~ConsoleServerTest() override { feed_.Close(); }

  // Holds the GPUs of `hosts` (all 8 each), with a plan naming their ranks.
  ledger::Allocation Hold(const std::vector<std::string>& hosts, absl::Duration ttl) {
    store::ReserveRequest request;
    json ranks = json::array();
    for (const std::string& host : hosts) {
      for (int i = 0; i < 8; ++i) {
        request.gpus.push_back(*fabric_->FindGpu(host, i));
        ranks.push_back({{"rank", ranks.size()}, {"host", host}, {"gpu", i}, {"nic", "n"}});
      }
    }
    request.job_spec = "tp=8,pp=1,dp=2,priority=5";
    request.plan_json = json{{"ranks", ranks}, {"bytes_per_tier", {{"leaf", 1e9}}}}.dump();
    request.ttl = ttl;
    absl::StatusOr<ledger::Allocation> held = ledger_->Reserve(request);
    EXPECT_TRUE(held.ok()) << held.status();
    return *held;
  }
  std::unique_ptr<ConsoleServer> Serve(bool authenticated = false) {
    ConsoleOptions options;
    options.authenticated_reads = authenticated;
    options.heartbeat = absl::Milliseconds(200);
    absl::StatusOr<std::unique_ptr<ConsoleServer>> server =
        ConsoleServer::Start(options, context_, feed_);
    EXPECT_TRUE(server.ok()) << server.status();
    return server.ok() ? *std::move(server) : nullptr;
  }
  static json Parse(const absl::StatusOr<std::string>& body) {
    EXPECT_TRUE(body.ok()) << body.status();
    return body.ok() ? json::parse(*body) : json();
  }

  testing::TempDir dir_;
  ledger::FakeClock clock_;
  FabricPtr fabric_;
  std::unique_ptr<store::SqliteLedger> inner_;
  ChangeFeed feed_;
  std::unique_ptr<ObservedLedger> ledger_;
  std::unique_ptr<store::TelemetryReportStore> telemetry_;
  ServiceContext context_;
};

TEST_F(ConsoleServerTest, SnapshotNamesTheHolderOfEveryGpuAndTheFabricsShape) {
  const std::string h0 = fabric_->hosts()[0].name, h3 = fabric_->hosts()[3].name;
  const ledger::Allocation a = Hold({h0}, absl::Seconds(60));
  const ledger::Allocation b = Hold({h3}, absl::Seconds(60));
  const json s = Parse(SnapshotJson(context_, clock_.Now()));
  EXPECT_EQ(s["schema"], "topoplace.console.snapshot/v1");
  EXPECT_EQ(s["fabric"]["hosts"], 4);
  EXPECT_EQ(s["fabric"]["gpus"], 32);
  EXPECT_EQ(s["hosts"]["name"].size(), 4u);
  ASSERT_EQ(s["blocks"].size(), 2u);
  EXPECT_EQ(s["blocks"][0]["hosts"], json({0, 1}));
  ASSERT_EQ(s["allocations"].size(), 2u);
  // gpu_owner: host by host, GPU by GPU; the index of the allocation in "allocations".
  const std::vector<int> owner = s["gpu_owner"].get<std::vector<int>>();
  ASSERT_EQ(owner.size(), 32u);
  const int ia = s["allocations"][0]["id"] == a.id ? 0 : 1;
  EXPECT_EQ(std::count(owner.begin(), owner.begin() + 8, ia), 8);
  EXPECT_EQ(std::count(owner.begin() + 24, owner.end(), 1 - ia), 8);
  EXPECT_EQ(std::count(owner.begin() + 8, owner.begin() + 24, -1), 16);
  EXPECT_EQ(s["links"], json({{"degraded", 0}, {"down", 0}}));
  (void)b;
}

TEST_F(ConsoleServerTest, AllocationsCarryAgeAndTheTimeLeftOnlyWhileReserved) {
  const ledger::Allocation a = Hold({fabric_->hosts()[0].name}, absl::Seconds(60));
  clock_.Advance(absl::Seconds(15));
  json list = Parse(AllocationsJson(context_, clock_.Now()))["allocations"];
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["state"], "reserved");
  EXPECT_EQ(list[0]["age_seconds"], 15);
  EXPECT_EQ(list[0]["ttl_seconds"], 45);
  EXPECT_EQ(list[0]["priority"], 5);
  EXPECT_EQ(list[0]["gpus"], 8);
  ASSERT_TRUE(ledger_->Commit(a.id, "slurm:9").ok());
  list = Parse(AllocationsJson(context_, clock_.Now()))["allocations"];
  EXPECT_EQ(list[0]["state"], "committed");
  EXPECT_EQ(list[0]["external_id"], "slurm:9");
  EXPECT_TRUE(list[0]["ttl_seconds"].is_null());
}

TEST_F(ConsoleServerTest, JobNamesItsHostsRanksBytesAndPath) {
  const std::string h0 = fabric_->hosts()[0].name, h2 = fabric_->hosts()[2].name;
  const ledger::Allocation a = Hold({h0, h2}, absl::Seconds(60));  // two blocks
  const json job = Parse(JobJson(context_, a.id, clock_.Now()));
  EXPECT_EQ(job["schema"], "topoplace.console.job/v1");
  ASSERT_EQ(job["hosts"].size(), 2u);
  EXPECT_EQ(job["hosts"][0]["name"], h0);
  EXPECT_EQ(job["hosts"][1]["gpus"].size(), 8u);
  EXPECT_EQ(job["ranks"].size(), 16u);
  EXPECT_EQ(job["bytes_per_tier"]["leaf"], 1e9);
  // Across blocks the path climbs above the leaves: a tier-2 switch is on it.
  bool spine = false;
  for (const json& s : job["switches"]) spine = spine || s["tier"] == 2;
  EXPECT_TRUE(spine) << job["switches"].dump();
  EXPECT_GE(job["links"].size(), 16u);  // 8 cables per host at least
  for (const json& l : job["links"]) EXPECT_EQ(l["health"], "healthy");
}

TEST_F(ConsoleServerTest, UnknownJobIsNotFoundAndAPlanThatIsNotJsonShowsNoRanks) {
  EXPECT_EQ(JobJson(context_, "alloc-99", clock_.Now()).status().code(),
            absl::StatusCode::kNotFound);
  store::ReserveRequest request;
  request.gpus = {0};
  request.plan_json = "{not json";
  const ledger::Allocation a = *ledger_->Reserve(request);
  const json job = Parse(JobJson(context_, a.id, clock_.Now()));
  EXPECT_TRUE(job["ranks"].empty());
  EXPECT_EQ(job["hosts"].size(), 1u);
}

TEST_F(ConsoleServerTest, LinksShowTheNewestEventsCounterRatesAndPortReadings) {
  const std::string leaf = fabric_->switches()[0].name;
  ASSERT_TRUE(telemetry_
                  ->AddHealthEvents({{"x--y", "healthy", "degraded", "first", 1000},
                                     {"x--y", "degraded", "down", "second", 2000}})
                  .ok());
  ASSERT_TRUE(telemetry_
                  ->AddCounterRates({{leaf, "rx_errors", 0.5, 1000},
                                     {leaf, "rx_errors", 3.0, 2000},
                                     {leaf, "link_downs", 1.0, 1500}})
                  .ok());
  v1::ReportPortCountersRequest batch;
  batch.set_reporter("test");
  for (const auto& [at, errors] : std::vector<std::pair<int64_t, uint64_t>>{{1000, 1}, {2000, 7}}) {
    v1::PortCounters* c = batch.add_counters();
    c->set_endpoint(leaf);
    c->set_port(3);
    c->set_rx_errors(errors);
    c->set_measured_unix_ms(at);
  }
  ASSERT_TRUE(telemetry_->AddPortCounters(batch).ok());

  const json links = Parse(LinksJson(context_, clock_.Now()));
  EXPECT_TRUE(links["unhealthy"].empty()) << "no link health monitor: every link healthy";
  ASSERT_EQ(links["events"].size(), 2u);
  EXPECT_EQ(links["events"][0]["reason"], "second") << "newest first";
  // The newest rate of each (endpoint, counter), highest first.
  ASSERT_EQ(links["counter_rates"].size(), 2u);
  EXPECT_EQ(links["counter_rates"][0]["counter"], "rx_errors");
  EXPECT_EQ(links["counter_rates"][0]["per_second"], 3.0);
  EXPECT_EQ(links["counter_rates"][1]["counter"], "link_downs");
  // The newest reading of each (endpoint, port).
  ASSERT_EQ(links["port_counters"].size(), 1u);
  EXPECT_EQ(links["port_counters"][0]["rx_errors"], 7);
  EXPECT_EQ(links["port_counters"][0]["at_unix_ms"], 2000);
}

TEST_F(ConsoleServerTest, HttpServesPagesDocumentsAndErrorsWithHeadersThatForbidInlineScript) {
  std::unique_ptr<ConsoleServer> server = Serve();
  ASSERT_NE(server, nullptr);
  httplib::Client http("127.0.0.1", server->port());
  httplib::Result page = http.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_THAT(page->body, HasSubstr("<script src=\"/console.js\"></script>"));
  EXPECT_THAT(page->get_header_value("Content-Security-Policy"), HasSubstr("default-src 'self'"));
  EXPECT_EQ(page->get_header_value("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(http.Get("/console.js")->get_header_value("Content-Type"),
            "text/javascript; charset=utf-8");
  httplib::Result missing = http.Get("/api/v1/jobs/alloc-404");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_THAT(json::parse(missing->body)["error"].get<std::string>(), HasSubstr("alloc-404"));
  EXPECT_EQ(http.Get("/no/such/page")->status, 404);
  EXPECT_EQ(json::parse(http.Get("/api/v1/links")->body)["schema"], "topoplace.console.links/v1");
}

TEST_F(ConsoleServerTest, EventStreamSaysHelloThenNamesEachLedgerChange) {
  std::unique_ptr<ConsoleServer> server = Serve();
  ASSERT_NE(server, nullptr);
  httplib::Client http("127.0.0.1", server->port());
  std::string received;
  std::thread reader([&] {
    http.Get("/api/v1/events", [&](const char* data, size_t size) {
      received.append(data, size);
      return received.find("event: allocations") == std::string::npos;  // stop after it
    });
  });
  // The hello comes first; change the ledger once the stream is open.
  for (int i = 0; i < 200 && feed_.last() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (i == 20) Hold({fabric_->hosts()[1].name}, absl::Seconds(60));
  }
  reader.join();
  EXPECT_THAT(received, HasSubstr("event: hello\ndata: {\"seq\":"));
  EXPECT_THAT(received, HasSubstr("event: allocations\ndata: {\"seq\":1}"));
}

TEST_F(ConsoleServerTest, AuthenticatedReadsNeedTheTokenAsBasicPasswordOrBearer) {
  const std::string token_file = dir_.File("token");
  std::ofstream(token_file) << "console-t0ken-0123456789\n";
  std::filesystem::permissions(token_file, std::filesystem::perms::owner_read);
  ServerConfig config;
  config.token_file = token_file;
  config.read_access = "authenticated";
  context_.authorizer = *Authorizer::FromConfig(config, [](absl::string_view) { return false; });
  std::unique_ptr<ConsoleServer> server = Serve(/*authenticated=*/true);
  ASSERT_NE(server, nullptr);
  httplib::Client http("127.0.0.1", server->port());
  EXPECT_EQ(http.Get("/api/v1/snapshot")->status, 401);
  EXPECT_EQ(http.Get("/api/v1/snapshot", {{"Authorization", "Bearer nope"}})->status, 401);
  EXPECT_EQ(
      http.Get("/api/v1/snapshot", {{"Authorization", "Bearer console-t0ken-0123456789"}})->status,
      200);
  http.set_basic_auth("anyone", "console-t0ken-0123456789");
  EXPECT_EQ(http.Get("/")->status, 200);
  http.set_basic_auth("anyone", "wrong");
  EXPECT_EQ(http.Get("/")->status, 401);
}

TEST_F(ConsoleServerTest, WithAClientCaOnlyCallersWithASignedCertificateGetIn) {
  absl::StatusOr<testing::TestCertificates> pki = testing::MakeTestCertificates(dir_.path());
  ASSERT_TRUE(pki.ok()) << pki.status();
  ConsoleOptions options;
  options.listener.tls_cert_file = pki->server_cert;
  options.listener.tls_key_file = pki->server_key;
  options.listener.tls_client_ca_file = pki->ca_cert;
  options.authenticated_reads = true;  // the certificate is the credential
  absl::StatusOr<std::unique_ptr<ConsoleServer>> server =
      ConsoleServer::Start(options, context_, feed_);
  ASSERT_TRUE(server.ok()) << server.status();
  {
    httplib::SSLClient anonymous("127.0.0.1", (*server)->port());
    anonymous.set_ca_cert_path(pki->ca_cert.c_str());
    EXPECT_FALSE(anonymous.Get("/api/v1/snapshot")) << "the TLS handshake must fail";
  }
  httplib::SSLClient client("127.0.0.1", (*server)->port(), pki->client_cert, pki->client_key);
  client.set_ca_cert_path(pki->ca_cert.c_str());
  httplib::Result r = client.Get("/api/v1/snapshot");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(json::parse(r->body)["schema"], "topoplace.console.snapshot/v1");
}

// A client socket to 127.0.0.1:`port`, connected (blocking) or only started (`wait`
// false: the connect goes on in the kernel). -1 on failure.
int Dial(int port, bool wait = true) {
  const int fd = socket(AF_INET, SOCK_STREAM | (wait ? 0 : SOCK_NONBLOCK), 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 && wait) {
    close(fd);
    return -1;
  }
  return fd;
}

// This process's descriptors that are the server's end of a connection to `port`.
int AcceptedConnections(int port) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    int fd = 0;
    if (!absl::SimpleAtoi(entry.path().filename().string(), &fd)) continue;
    sockaddr_in local{}, peer{};
    socklen_t size = sizeof(local);
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &size) != 0) continue;
    size = sizeof(peer);
    if (local.sin_family != AF_INET || ntohs(local.sin_port) != port) continue;
    if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &size) != 0) continue;  // listener
    ++n;
  }
  return n;
}

// Hardening round four, finding 5: 32 held event streams took all 32 workers and every
// page timed out while they were held. Streams get a quarter of the workers; the others
// are answered 503 at once, and pages are served meanwhile.
TEST_F(ConsoleServerTest, HeldEventStreamsLeaveWorkersForPages) {
  std::unique_ptr<ConsoleServer> server = Serve();
  ASSERT_NE(server, nullptr);
  std::vector<int> streams;
  int refused = 0;
  for (int i = 0; i < 32; ++i) {
    const int fd = Dial(server->port());
    ASSERT_GE(fd, 0);
    const std::string get = "GET /api/v1/events HTTP/1.1\r\nHost: console\r\n\r\n";
    ASSERT_EQ(write(fd, get.data(), get.size()), static_cast<ssize_t>(get.size()));
    char status[13] = {};
    ASSERT_EQ(read(fd, status, 12), 12);  // "HTTP/1.1 200" or "HTTP/1.1 503"
    if (std::string(status) == "HTTP/1.1 503") {
      ++refused;
      close(fd);  // as the 503's Connection: close asks
    } else {
      streams.push_back(fd);  // held open, read no further
    }
  }
  EXPECT_EQ(refused, 24);
  httplib::Client http("127.0.0.1", server->port());
  http.set_read_timeout(30, 0);  // before the fix: no worker ever answered
  httplib::Result page = http.Get("/api/v1/snapshot");
  ASSERT_TRUE(page) << "no answer while 8 streams are held";
  EXPECT_EQ(page->status, 200);
  for (int fd : streams) close(fd);
  feed_.Close();  // ends the held streams at their next wait
}

// Hardening round four, finding 5: the console accepted every connection, so 4,200 idle
// ones took all of the daemon's descriptors (and gRPC never accepted again). Past
// max_connections it stops accepting: the rest wait in the kernel's backlog.
TEST_F(ConsoleServerTest, ConnectionsPastTheCapAreNotAccepted) {
  ConsoleOptions options;
  options.listener.max_connections = 40;
  absl::StatusOr<std::unique_ptr<ConsoleServer>> server =
      ConsoleServer::Start(options, context_, feed_);
  ASSERT_TRUE(server.ok()) << server.status();
  const int port = (*server)->port();
  std::vector<int> idle;
  for (int i = 0; i < 200; ++i) idle.push_back(Dial(port, /*wait=*/false));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // let the listener accept
  EXPECT_LE(AcceptedConnections(port), 40);
  EXPECT_GT(AcceptedConnections(port), 0);
  for (int fd : idle) close(fd);
  // Once they close, it accepts again.
  httplib::Client http("127.0.0.1", port);
  http.set_read_timeout(30, 0);
  httplib::Result page = http.Get("/api/v1/links");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
}

// A client that sends its request head a byte at a time: on a plain socket or in TLS
// records (one per byte). Send is false once the console has closed the connection.
class SlowClient {
 public:
  // Connected to 127.0.0.1:`port`; with `tls`, after a TLS handshake (the server's
  // certificate is not checked: the test is about time, not trust).
  static std::unique_ptr<SlowClient> Connect(int port, SSL_CTX* tls) {
    auto client = std::unique_ptr<SlowClient>(new SlowClient(Dial(port)));
    if (client->fd_ < 0) return nullptr;
    if (tls != nullptr) {
      client->ssl_ = SSL_new(tls);
      SSL_set_fd(client->ssl_, client->fd_);
      if (SSL_connect(client->ssl_) != 1) return nullptr;
    }
    return client;
  }
  ~SlowClient() {
    if (ssl_ != nullptr) SSL_free(ssl_);
    close(fd_);
  }
  bool Send(const std::string& bytes) {
    const int n = static_cast<int>(bytes.size());
    if (ssl_ != nullptr) return SSL_write(ssl_, bytes.data(), n) == n;
    return send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == n;
  }

 private:
  explicit SlowClient(int fd) : fd_(fd) {}
  int fd_;
  SSL* ssl_ = nullptr;
};

// Starts `count` slow heads, trickles them for 8 s (a byte each per 200 ms) and asks for a
// page meanwhile: the page is served while they trickle, and every slow one is cut off.
void ExpectSlowHeadsCutOffAndPagesServed(int port, int count, SSL_CTX* tls,
                                         httplib::ClientImpl& http) {
  std::vector<std::unique_ptr<SlowClient>> slow;
  for (int i = 0; i < count; ++i) {
    slow.push_back(SlowClient::Connect(port, tls));
    ASSERT_NE(slow.back(), nullptr) << "slow client " << i << " did not connect";
    ASSERT_TRUE(slow.back()->Send("GET /api/v1/snapshot HTTP/1.1\r\nHost: console\r\nX-Slow: "));
  }
  std::atomic<bool> trickling{true};
  std::atomic<int> cut_off{0};
  std::thread trickle([&] {
    std::vector<bool> open(slow.size(), true);
    for (int round = 0; round < 40; ++round) {
      for (size_t i = 0; i < slow.size(); ++i) {
        if (open[i] && !slow[i]->Send("a")) {
          open[i] = false;
          ++cut_off;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    trickling = false;
  });
  http.set_read_timeout(5, 0);
  httplib::Result page = http.Get("/api/v1/snapshot");
  const bool during = trickling.load();
  trickle.join();
  ASSERT_TRUE(page) << "no answer while slow heads were held: " << httplib::to_string(page.error());
  EXPECT_EQ(page->status, 200);
  EXPECT_TRUE(during) << "answered only after the slow clients stopped";
  EXPECT_EQ(cut_off.load(), count) << "slow heads kept their connections";
}

// Hardening round four, finding 5: 40 connections sending one header byte every 2 s held
// every worker (each byte came within the read timeout), and an authorised request waited
// for as long as they kept on. A request head must now be whole within head_timeout: the
// slow ones are closed while they are still sending, and pages are served meanwhile.
TEST_F(ConsoleServerTest, HeadersSentAByteAtATimeAreCutOffAndPagesServed) {
  ConsoleOptions options;
  options.head_timeout = absl::Seconds(1);
  absl::StatusOr<std::unique_ptr<ConsoleServer>> server =
      ConsoleServer::Start(options, context_, feed_);
  ASSERT_TRUE(server.ok()) << server.status();
  httplib::ClientImpl http("127.0.0.1", (*server)->port());
  ExpectSlowHeadsCutOffAndPagesServed((*server)->port(), 40, /*tls=*/nullptr, http);
}

// The same in TLS, where the relay cannot read the heads and times each request's answer
// instead: until round four's last change the TLS console had only the listener's per-read
// timeout, which a byte every 200 ms never reaches, and kept every slow head. (24 slow
// clients, fewer than the 32 workers: a page that waited for a worker longer than the
// timeout would be closed too, the price of timing answers.)
TEST_F(ConsoleServerTest, InTlsToo) {
  absl::StatusOr<testing::TestCertificates> pki = testing::MakeTestCertificates(dir_.path());
  ASSERT_TRUE(pki.ok()) << pki.status();
  signal(SIGPIPE, SIG_IGN);  // SSL_write to a closed connection
  ConsoleOptions options;
  options.listener.tls_cert_file = pki->server_cert;
  options.listener.tls_key_file = pki->server_key;
  options.head_timeout = absl::Seconds(1);
  absl::StatusOr<std::unique_ptr<ConsoleServer>> server =
      ConsoleServer::Start(options, context_, feed_);
  ASSERT_TRUE(server.ok()) << server.status();
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> tls(SSL_CTX_new(TLS_client_method()),
                                                        &SSL_CTX_free);
  httplib::SSLClient https("127.0.0.1", (*server)->port());
  https.set_ca_cert_path(pki->ca_cert.c_str());
  ExpectSlowHeadsCutOffAndPagesServed((*server)->port(), 24, tls.get(), https);
}

}  // namespace
}  // namespace topoplace::server
