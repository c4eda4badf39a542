#include "plugins/k8s/extender/kube_api.h"

#include <httplib.h>

#include <cstdlib>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "base/input_file.h"
#include "base/status_macros.h"

namespace topoplace::k8s {
namespace {

constexpr char kServiceAccountDir[] = "/var/run/secrets/kubernetes.io/serviceaccount";

class HttpsKubeApi final : public KubeApi {
 public:
  HttpsKubeApi(std::string host, int port, std::string token_file, const KubeApiOptions& options)
      : client_(host, port), token_file_(std::move(token_file)) {
    client_.set_ca_cert_path(options.ca_file.c_str());
    client_.enable_server_certificate_verification(true);
    const auto timeout = static_cast<time_t>(options.timeout_seconds);
    client_.set_connection_timeout(timeout);
    client_.set_read_timeout(timeout);
    client_.set_write_timeout(timeout);
  }

  absl::StatusOr<KubeReply> Send(absl::string_view method, absl::string_view path,
                                 absl::string_view body) override {
    // Read each time: projected service account tokens are rotated in place.
    TP_ASSIGN_OR_RETURN(std::string token,
                        ReadInputFile(token_file_, kMaxCredentialFileBytes, "token file"));
    const httplib::Headers headers = {
        {"Authorization", absl::StrCat("Bearer ", absl::StripAsciiWhitespace(token))},
        {"Accept", "application/json"}};
    const std::string target(path);
    absl::MutexLock lock(&mu_);  // one connection, kept alive between calls
    httplib::Result result = method == "POST" ? client_.Post(target.c_str(), headers,
                                                             std::string(body), "application/json")
                                              : client_.Get(target.c_str(), headers);
    if (!result) {
      return absl::UnavailableError(absl::StrCat("Kubernetes API ", method, " ", path, ": ",
                                                 httplib::to_string(result.error())));
    }
    return KubeReply{result->status, result->body};
  }

 private:
  absl::Mutex mu_;
  httplib::SSLClient client_ ABSL_GUARDED_BY(mu_);
  const std::string token_file_;
};

absl::Status Readable(const std::string& path, absl::string_view what) {
  return ReadInputFile(path, kMaxCredentialFileBytes, what).status();
}

}  // namespace

absl::StatusOr<std::unique_ptr<KubeApi>> ConnectKubeApi(const KubeApiOptions& options) {
  KubeApiOptions o = options;
  std::string host;
  int port = 443;
  if (o.server == "in-cluster") {
    const char* env_host = std::getenv("KUBERNETES_SERVICE_HOST");
    const char* env_port = std::getenv("KUBERNETES_SERVICE_PORT");
    if (env_host == nullptr || env_port == nullptr || !absl::SimpleAtoi(env_port, &port)) {
      return absl::InvalidArgumentError(
          "--kube-api in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not "
          "set (not running in a pod?)");
    }
    host = env_host;
    if (o.token_file.empty()) o.token_file = absl::StrCat(kServiceAccountDir, "/token");
    if (o.ca_file.empty()) o.ca_file = absl::StrCat(kServiceAccountDir, "/ca.crt");
  } else {
    absl::string_view rest = o.server;
    if (!absl::ConsumePrefix(&rest, "https://")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--kube-api: expected https://HOST:PORT or in-cluster, got '", o.server, "'"));
    }
    rest = absl::StripSuffix(rest, "/");
    const size_t colon = rest.rfind(':');
    if (colon == absl::string_view::npos || colon == 0 ||
        !absl::SimpleAtoi(rest.substr(colon + 1), &port) || port <= 0 || port > 65535) {
      return absl::InvalidArgumentError(
          absl::StrCat("--kube-api: expected https://HOST:PORT, got '", o.server, "'"));
    }
    host = std::string(rest.substr(0, colon));
  }
  if (o.token_file.empty() || o.ca_file.empty()) {
    return absl::InvalidArgumentError("--kube-api needs --kube-token-file and --kube-ca-file");
  }
  TP_RETURN_IF_ERROR(Readable(o.token_file, "--kube-token-file"));
  TP_RETURN_IF_ERROR(Readable(o.ca_file, "--kube-ca-file"));
  std::string token_file = o.token_file;
  return std::unique_ptr<KubeApi>(
      new HttpsKubeApi(std::move(host), port, std::move(token_file), o));
}

}  // namespace topoplace::k8s
