#include "plugins/k8s/extender/extender_server.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/integration/service/support/temp_dir.h"
#include "tests/integration/service/support/test_certificates.h"
#include "tests/unit/plugins/k8s/extender/fake_placement_backend.h"
#include "tests/unit/plugins/k8s/extender/recorded_requests.h"

namespace topoplace::k8s {
namespace {

using json = nlohmann::json;

class ExtenderServerTest : public ::testing::Test {
 protected:
  ExtenderServerTest()
      : planner_(std::make_unique<testing::FakePlacementBackend>(
                     std::vector<std::string>{"node-a1"}, &clock_),
                 PlannerOptions{}, [this] { return clock_(); }),
        handlers_(planner_) {}

  testing::FakeClock clock_;
  GangPlanner planner_;
  ExtenderHandlers handlers_;
  std::vector<testing::RecordedRequest> recorded_ = testing::LoadRecordedRequests();
};

// Plain HTTP on loopback, explicitly without client authentication.
ServerOptions InsecureLoopback() {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.insecure = true;
  return options;
}

TEST_F(ExtenderServerTest, ServesFilterAndPrioritizeUnderAnyUrlPrefixOnAFreePort) {
  ServerOptions options = InsecureLoopback();
  auto server = ExtenderServer::Start(options, handlers_);
  ASSERT_TRUE(server.ok()) << server.status();
  ASSERT_GT((*server)->port(), 0);

  httplib::Client client("127.0.0.1", (*server)->port());
  auto filter = client.Post(recorded_[1].path, recorded_[1].body, "application/json");
  auto prioritize = client.Post("/prioritize", recorded_[2].body, "application/json");
  auto health = client.Get("/healthz");

  ASSERT_TRUE(filter);
  EXPECT_EQ(filter->status, 200);
  EXPECT_EQ(json::parse(filter->body)["NodeNames"].size(), 4u);
  ASSERT_TRUE(prioritize);
  EXPECT_EQ(json::parse(prioritize->body).size(), 2u);
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

TEST_F(ExtenderServerTest, ServesHttpsWithTheDaemonsCertificateOptionsAndRequiresClientCerts) {
  topoplace::testing::TempDir dir;
  auto certs = topoplace::testing::MakeTestCertificates(dir.path());
  ASSERT_TRUE(certs.ok()) << certs.status();
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.tls_cert_file = certs->server_cert;
  options.tls_key_file = certs->server_key;
  options.tls_client_ca_file = certs->ca_cert;
  auto server = ExtenderServer::Start(options, handlers_);
  ASSERT_TRUE(server.ok()) << server.status();

  httplib::SSLClient with_cert("127.0.0.1", (*server)->port(), certs->client_cert,
                               certs->client_key);
  with_cert.set_ca_cert_path(certs->ca_cert.c_str());
  with_cert.enable_server_certificate_verification(true);
  auto ok = with_cert.Post("/topo/filter", recorded_[0].body, "application/json");
  ASSERT_TRUE(ok) << httplib::to_string(ok.error());
  EXPECT_EQ(ok->status, 200);

  httplib::SSLClient without_cert("127.0.0.1", (*server)->port());
  without_cert.enable_server_certificate_verification(false);
  EXPECT_FALSE(without_cert.Post("/topo/filter", recorded_[0].body, "application/json"));
}

TEST_F(ExtenderServerTest, RejectsALoneTlsFileAndUnreadableFiles) {
  ServerOptions lone = InsecureLoopback();
  lone.tls_cert_file = "/nonexistent/cert.pem";
  EXPECT_EQ(ExtenderServer::Start(lone, handlers_).status().code(),
            absl::StatusCode::kInvalidArgument);
  lone.tls_key_file = "/nonexistent/key.pem";
  EXPECT_EQ(ExtenderServer::Start(lone, handlers_).status().code(), absl::StatusCode::kNotFound);
  ServerOptions bad = InsecureLoopback();
  bad.listen = "no-port";
  EXPECT_EQ(ExtenderServer::Start(bad, handlers_).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(ExtenderServerTest, RefusesToStartWithoutClientAuthenticationUnlessInsecure) {
  ServerOptions open;
  open.listen = "127.0.0.1:0";
  auto refused = ExtenderServer::Start(open, handlers_);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.status().message()), ::testing::HasSubstr("--insecure"));

  topoplace::testing::TempDir dir;
  auto certs = topoplace::testing::MakeTestCertificates(dir.path());
  ASSERT_TRUE(certs.ok()) << certs.status();
  ServerOptions tls_only = open;  // HTTPS, but anyone may call it
  tls_only.tls_cert_file = certs->server_cert;
  tls_only.tls_key_file = certs->server_key;
  EXPECT_EQ(ExtenderServer::Start(tls_only, handlers_).status().code(),
            absl::StatusCode::kInvalidArgument);
  open.insecure = true;
  EXPECT_TRUE(ExtenderServer::Start(open, handlers_).ok());
}

// The crash of the finding: a 120 KB body of arrays nested 60,000 deep in Nodes.items.
TEST_F(ExtenderServerTest, DeeplyNestedBodyIs400AndTheServerKeepsServing) {
  auto server = ExtenderServer::Start(InsecureLoopback(), handlers_);
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string body =
      R"({"Pod":{},"Nodes":{"items":)" + std::string(60000, '[') + std::string(60000, ']') + "}}";
  httplib::Client client("127.0.0.1", (*server)->port());
  for (const char* path : {"/filter", "/prioritize"}) {
    auto r = client.Post(path, body, "application/json");
    ASSERT_TRUE(r) << path << ": " << httplib::to_string(r.error());
    EXPECT_EQ(r->status, 400) << path;
    EXPECT_THAT(r->body, ::testing::HasSubstr("nested deeper than 128"));
  }
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

TEST_F(ExtenderServerTest, BodyOverTheLimitIs413WithoutBeingParsed) {
  ServerOptions options = InsecureLoopback();
  options.max_body_bytes = 64 << 10;
  auto server = ExtenderServer::Start(options, handlers_);
  ASSERT_TRUE(server.ok()) << server.status();
  httplib::Client client("127.0.0.1", (*server)->port());
  auto big =
      client.Post("/filter", std::string(options.max_body_bytes + 1, ' '), "application/json");
  ASSERT_TRUE(big) << httplib::to_string(big.error());
  EXPECT_EQ(big->status, 413);
  auto fits = client.Post("/filter", recorded_[0].body, "application/json");
  ASSERT_TRUE(fits);
  EXPECT_EQ(fits->status, 200);
}

// Slow-header clients: each holds a worker until the read timeout closes it; the others
// keep being served, and the slow connections do get closed.
TEST_F(ExtenderServerTest, SlowHeaderClientsDoNotStallOthersAndAreClosed) {
  ServerOptions options = InsecureLoopback();
  options.worker_threads = 16;
  options.read_timeout_seconds = 1;
  auto server = ExtenderServer::Start(options, handlers_);
  ASSERT_TRUE(server.ok()) << server.status();
  const int port = (*server)->port();
  std::vector<int> slow;
  for (int i = 0; i < 8; ++i) {  // the 8 connections of the finding
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    const char partial[] = "POST /filter HTTP/1.1\r\nHost: x\r\nContent-Le";
    ASSERT_GT(send(fd, partial, sizeof(partial) - 1, 0), 0);
    slow.push_back(fd);
  }
  httplib::Client client("127.0.0.1", port);
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health) << httplib::to_string(health.error());
  EXPECT_EQ(health->status, 200);
  auto filter = client.Post("/filter", recorded_[0].body, "application/json");
  ASSERT_TRUE(filter);
  EXPECT_EQ(filter->status, 200);
  // The server hangs up on each silent client (recv sees end of stream or a reset).
  for (int fd : slow) {
    timeval wait{.tv_sec = 30, .tv_usec = 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
    char buffer[512];
    ssize_t n;
    do {
      n = recv(fd, buffer, sizeof(buffer), 0);
    } while (n > 0);  // a 400 answer may come first
    EXPECT_TRUE(n == 0 || errno == ECONNRESET) << "recv " << n << " errno " << errno;
    close(fd);
  }
}

}  // namespace
}  // namespace topoplace::k8s
