// Specification of the topoplaced binary as operators run it: embedded default, health,
// reflection, clean shutdown on SIGTERM.
#include <arpa/inet.h>
#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "client/topoplace_client.h"
#include "grpc/health_probe.grpc.pb.h"
#include "grpc/reflection_probe.grpc.pb.h"
#include "gtest/gtest.h"
#include "tests/integration/service/support/daemon_process.h"
#include "tests/integration/service/support/temp_dir.h"

namespace topoplace::testing {
namespace {

std::unique_ptr<client::TopoplaceClient> Connect(const DaemonProcess& daemon) {
  client::ClientOptions options;
  options.server = daemon.address();
  options.timeout = absl::Seconds(20);
  return *client::TopoplaceClient::Connect(options);
}

TEST(DaemonTest, Daemon_WithNoConfigurationServesTheReferenceFabricFromALocalDatabase) {
  TempDir dir;
  DaemonProcess daemon(TopoplacedPath(), {}, dir.path());
  ASSERT_TRUE(daemon.Start().ok()) << daemon.log();
  auto summary = Connect(daemon)->GetFabricSummary();
  ASSERT_TRUE(summary.ok()) << summary.status() << daemon.log();
  EXPECT_EQ(summary->name(), "superpod-4su");
  EXPECT_EQ(summary->gpus(), 1024);
  EXPECT_TRUE(std::filesystem::exists(dir.File("topoplace-data/topoplaced.db")));
}

TEST(DaemonTest, Daemon_ServesHealthAndReflection) {
  TempDir dir;
  DaemonProcess daemon(TopoplacedPath(), {"--db", dir.File("t.db")}, dir.path());
  ASSERT_TRUE(daemon.Start().ok()) << daemon.log();
  auto channel = grpc::CreateChannel(daemon.address(), grpc::InsecureChannelCredentials());
  {
    auto health = grpc::health::v1::Health::NewStub(channel);
    grpc::ClientContext ctx;
    grpc::health::v1::HealthCheckRequest request;
    grpc::health::v1::HealthCheckResponse response;
    grpc::Status s = health->Check(&ctx, request, &response);
    ASSERT_TRUE(s.ok()) << s.error_message();
    EXPECT_EQ(response.status(), grpc::health::v1::HealthCheckResponse::SERVING);
  }
  {
    auto reflection = grpc::reflection::v1alpha::ServerReflection::NewStub(channel);
    grpc::ClientContext ctx;
    auto stream = reflection->ServerReflectionInfo(&ctx);
    grpc::reflection::v1alpha::ServerReflectionRequest request;
    request.set_list_services("");
    ASSERT_TRUE(stream->Write(request));
    stream->WritesDone();
    grpc::reflection::v1alpha::ServerReflectionResponse response;
    ASSERT_TRUE(stream->Read(&response));
    std::set<std::string> services;
    for (const auto& s : response.list_services_response().service()) services.insert(s.name());
    EXPECT_TRUE(services.count("topoplace.v1.Placement")) << response.DebugString();
    EXPECT_TRUE(services.count("topoplace.v1.Topology"));
    EXPECT_TRUE(services.count("topoplace.v1.Telemetry"));
    EXPECT_TRUE(services.count("grpc.health.v1.Health"));
    while (stream->Read(&response)) {
    }
    EXPECT_TRUE(stream->Finish().ok());
  }
}

// Reflection lists every method to anyone, so with authenticated reads it is off. Health
// stays anonymous on purpose: kubelet and systemd probes carry no credentials, and it
// tells only SERVING or NOT_SERVING (kube-apiserver leaves /healthz open the same way).
TEST(DaemonTest, Daemon_WithAuthenticatedReadsOffersNoReflectionButAnonymousHealth) {
  TempDir dir;
  const std::string token_file = dir.File("token");
  std::ofstream(token_file) << "daemon-token-0123456789abcdef\n";
  ASSERT_EQ(chmod(token_file.c_str(), 0600), 0);
  DaemonProcess daemon(
      TopoplacedPath(),
      {"--db", dir.File("t.db"), "--token-file", token_file, "--read-access", "authenticated"},
      dir.path());
  ASSERT_TRUE(daemon.Start().ok()) << daemon.log();
  auto channel = grpc::CreateChannel(daemon.address(), grpc::InsecureChannelCredentials());
  {
    auto reflection = grpc::reflection::v1alpha::ServerReflection::NewStub(channel);
    grpc::ClientContext ctx;
    auto stream = reflection->ServerReflectionInfo(&ctx);
    grpc::reflection::v1alpha::ServerReflectionRequest request;
    request.set_list_services("");
    stream->Write(request);
    stream->WritesDone();
    grpc::reflection::v1alpha::ServerReflectionResponse response;
    EXPECT_FALSE(stream->Read(&response));
    EXPECT_EQ(stream->Finish().error_code(), grpc::StatusCode::UNIMPLEMENTED);
  }
  {
    auto health = grpc::health::v1::Health::NewStub(channel);
    grpc::ClientContext ctx;
    grpc::health::v1::HealthCheckRequest request;
    grpc::health::v1::HealthCheckResponse response;
    ASSERT_TRUE(health->Check(&ctx, request, &response).ok());
    EXPECT_EQ(response.status(), grpc::health::v1::HealthCheckResponse::SERVING);
  }
  EXPECT_EQ(Connect(daemon)->ListAllocations().status().code(), absl::StatusCode::kUnauthenticated);
}

TEST(DaemonTest, Daemon_WorldReadableTokenFileIsRefusedWithTheFix) {
  TempDir dir;
  const std::string token_file = dir.File("token");
  std::ofstream(token_file) << "daemon-token-0123456789abcdef\n";
  ASSERT_EQ(chmod(token_file.c_str(), 0644), 0);
  DaemonProcess daemon(TopoplacedPath(), {"--db", dir.File("t.db"), "--token-file", token_file},
                       dir.path());
  ASSERT_FALSE(daemon.Start().ok());
  EXPECT_NE(daemon.log().find("may be read or written by every user"), std::string::npos)
      << daemon.log();
}

TEST(DaemonTest, Daemon_SigtermStopsCleanlyAndCommitsSurviveTheRestart) {
  TempDir dir;
  const std::vector<std::string> args = {"--db", dir.File("t.db")};
  std::string id;
  {
    DaemonProcess daemon(TopoplacedPath(), args, dir.path());
    ASSERT_TRUE(daemon.Start().ok()) << daemon.log();
    auto client = Connect(daemon);
    auto reserved = client->Reserve("tp=8,pp=1,dp=2", "", 0);
    ASSERT_TRUE(reserved.ok()) << reserved.status();
    id = reserved->allocation().allocation_id();
    ASSERT_TRUE(client->Commit(id, "slurm:77").ok());
    int status = daemon.Kill(SIGTERM);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << daemon.log();
  }
  DaemonProcess daemon(TopoplacedPath(), args, dir.path());
  ASSERT_TRUE(daemon.Start().ok()) << daemon.log();
  auto a = Connect(daemon)->GetAllocation(id);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->state(), v1::ALLOCATION_STATE_COMMITTED);
  EXPECT_EQ(a->external_id(), "slurm:77");
}

// Hardening finding 8: two daemons started on one database both served (each with its
// own in-memory ledger), answering alternately. The second now refuses to start, naming
// the lock and the holder; the first keeps serving.
TEST(DaemonTest, Daemon_ASecondDaemonOnTheSameDatabaseRefusesToStart) {
  TempDir dir;
  TempDir other;
  DaemonProcess first(TopoplacedPath(), {"--db", dir.File("t.db")}, dir.path());
  ASSERT_TRUE(first.Start().ok()) << first.log();
  DaemonProcess second(TopoplacedPath(), {"--db", dir.File("t.db")}, other.path());
  ASSERT_FALSE(second.Start().ok()) << second.log();
  EXPECT_NE(second.log().find(dir.File("t.db.lock")), std::string::npos) << second.log();
  EXPECT_NE(second.log().find("held by another process"), std::string::npos) << second.log();
  EXPECT_TRUE(Connect(first)->GetFabricSummary().ok());
}

// systemd's side of the notify protocol: a datagram socket the test reads as systemd
// would (NOTIFY_SOCKET), closed when destroyed.
class NotifySocket {
 public:
  explicit NotifySocket(const std::string& path) : path_(path) {
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    path.copy(addr.sun_path, sizeof(addr.sun_path) - 1);
    bound_ = fd_ >= 0 && bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~NotifySocket() {
    if (fd_ >= 0) close(fd_);
  }
  bool bound() const { return bound_; }
  // Every message that arrives within `window`.
  std::vector<std::string> Receive(absl::Duration window) {
    std::vector<std::string> got;
    const absl::Time end = absl::Now() + window;
    for (absl::Time now = absl::Now(); now < end; now = absl::Now()) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(end - now)) + 1) <= 0) continue;
      char buf[512];
      const ssize_t n = recv(fd_, buf, sizeof(buf), 0);
      if (n > 0) got.emplace_back(buf, static_cast<size_t>(n));
    }
    return got;
  }

 private:
  std::string path_;
  int fd_ = -1;
  bool bound_ = false;
};

int Count(const std::vector<std::string>& messages, const std::string& message) {
  return static_cast<int>(std::count(messages.begin(), messages.end(), message));
}

// Hardening finding 4: 1,030 idle connections against the unit's 1,024 descriptors made
// gRPC stop accepting for good, and the daemon stayed up, so systemd never restarted it.
// Under systemd's notify protocol the daemon says READY=1 and feeds the watchdog while its
// own listener answers; with its descriptors exhausted by idle connections it stops, so
// systemd (WatchdogSec) would kill and restart it. The limit here is 256, as a small
// LimitNOFILE; the beat is 2 s (WATCHDOG_USEC 4 s).
TEST(DaemonTest, Daemon_FeedsSystemdsWatchdogOnlyWhileItCanStillAcceptClients) {
  TempDir dir;
  NotifySocket systemd(dir.File("notify"));
  ASSERT_TRUE(systemd.bound());
  // gRPC alone on the listener (no relay, whose handshake timeout would close the idle
  // connections): the watchdog must catch what the relay prevents.
  DaemonProcess daemon(TopoplacedPath(), {"--db", dir.File("t.db"), "--max-connections", "0"},
                       dir.path());
  daemon.SetEnv("NOTIFY_SOCKET", dir.File("notify"));
  daemon.SetEnv("WATCHDOG_USEC", "4000000");
  daemon.SetOpenFileLimit(256);
  ASSERT_TRUE(daemon.Start().ok()) << daemon.log();
  const std::vector<std::string> healthy = systemd.Receive(absl::Seconds(5));
  EXPECT_EQ(Count(healthy, "READY=1"), 1);
  EXPECT_GE(Count(healthy, "WATCHDOG=1"), 1) << daemon.log();

  std::vector<int> idle;  // plain TCP connections that never speak, as in the finding
  for (int i = 0; i < 300; ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(daemon.port()));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0) << i;
    idle.push_back(fd);
  }
  (void)systemd.Receive(absl::Seconds(4));  // a beat already under way
  const std::vector<std::string> exhausted = systemd.Receive(absl::Seconds(6));
  EXPECT_EQ(Count(exhausted, "WATCHDOG=1"), 0) << daemon.log();
  EXPECT_NE(daemon.log().find("not feeding systemd's watchdog"), std::string::npos) << daemon.log();
  for (int fd : idle) close(fd);
  EXPECT_EQ(daemon.Kill(SIGTERM), 0);
}

TEST(DaemonTest, Daemon_BadFlagsExitWithBadInputAndAClearMessage) {
  TempDir dir;
  DaemonProcess daemon(TopoplacedPath(), {"--durability", "sometimes"}, dir.path());
  absl::Status s = daemon.Start();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(daemon.log().find("durability: expected full or normal"), std::string::npos)
      << daemon.log();
}

}  // namespace
}  // namespace topoplace::testing
