#include "plugins/k8s/extender/extender_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/integration/service/support/temp_dir.h"
#include "tests/integration/service/support/test_certificates.h"
#include "tests/unit/plugins/k8s/fake_placement_backend.h"
#include "tests/unit/plugins/k8s/recorded_requests.h"

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

TEST_F(ExtenderServerTest, ServesFilterAndPrioritizeUnderAnyUrlPrefixOnAFreePort) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
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
  ServerOptions lone;
  lone.listen = "127.0.0.1:0";
  lone.tls_cert_file = "/nonexistent/cert.pem";
  EXPECT_EQ(ExtenderServer::Start(lone, handlers_).status().code(),
            absl::StatusCode::kInvalidArgument);
  lone.tls_key_file = "/nonexistent/key.pem";
  EXPECT_EQ(ExtenderServer::Start(lone, handlers_).status().code(), absl::StatusCode::kNotFound);
  ServerOptions bad;
  bad.listen = "no-port";
  EXPECT_EQ(ExtenderServer::Start(bad, handlers_).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace topoplace::k8s
