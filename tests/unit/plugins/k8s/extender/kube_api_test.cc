#include "plugins/k8s/extender/kube_api.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace topoplace::k8s {
namespace {

using ::testing::HasSubstr;

// The HTTPS client itself talks to a real kube-apiserver in
// tests/integration/k8s/k8s_compute_domain_e2e_test.sh; here, what it refuses up front.
class KubeApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    token_ = ::testing::TempDir() + "/kube_api_test_token";
    std::ofstream(token_) << "secret\n";
  }
  void TearDown() override { std::remove(token_.c_str()); }
  KubeApiOptions Options(const std::string& server) const {
    return KubeApiOptions{.server = server, .token_file = token_, .ca_file = token_};
  }
  std::string token_;
};

TEST_F(KubeApiTest, AServerThatIsNotHttpsHostPortIsRefusedNamingTheFlag) {
  for (const char* bad : {"http://127.0.0.1:6443", "127.0.0.1:6443", "https://127.0.0.1",
                          "https://:6443", "https://host:0", "https://host:70000"}) {
    absl::StatusOr<std::unique_ptr<KubeApi>> api = ConnectKubeApi(Options(bad));
    ASSERT_FALSE(api.ok()) << bad;
    EXPECT_EQ(api.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(std::string(api.status().message()), HasSubstr("--kube-api")) << bad;
  }
  EXPECT_TRUE(ConnectKubeApi(Options("https://127.0.0.1:6443/")).ok());
}

TEST_F(KubeApiTest, AMissingTokenOrCaFileIsNotFoundNamingIt) {
  KubeApiOptions options = Options("https://127.0.0.1:6443");
  options.token_file = token_ + ".missing";
  absl::StatusOr<std::unique_ptr<KubeApi>> api = ConnectKubeApi(options);
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().code(), absl::StatusCode::kNotFound);
  options = Options("https://127.0.0.1:6443");
  options.ca_file = "";
  api = ConnectKubeApi(options);
  ASSERT_FALSE(api.ok());
  EXPECT_THAT(std::string(api.status().message()), HasSubstr("--kube-ca-file"));
}

TEST_F(KubeApiTest, InClusterOutsideAPodSaysWhatIsMissing) {
  unsetenv("KUBERNETES_SERVICE_HOST");
  absl::StatusOr<std::unique_ptr<KubeApi>> api = ConnectKubeApi(Options("in-cluster"));
  ASSERT_FALSE(api.ok());
  EXPECT_THAT(std::string(api.status().message()), HasSubstr("KUBERNETES_SERVICE_HOST"));
}

// An API server that cannot be reached is Unavailable, naming the call.
TEST_F(KubeApiTest, AnUnreachableServerIsUnavailable) {
  absl::StatusOr<std::unique_ptr<KubeApi>> api = ConnectKubeApi(Options("https://127.0.0.1:1"));
  ASSERT_TRUE(api.ok()) << api.status();
  absl::StatusOr<KubeReply> reply = (*api)->Send("GET", "/api/v1/pods", "");
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(reply.status().message()), HasSubstr("GET /api/v1/pods"));
}

}  // namespace
}  // namespace topoplace::k8s
