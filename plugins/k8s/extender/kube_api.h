// The few Kubernetes API calls the extender makes itself (beyond answering kube-scheduler):
// list pods and read or create ComputeDomains (compute_domains.h). The real one speaks
// HTTPS to the API server with a bearer token (ConnectKubeApi); tests use an in-memory one.
//
//   TP_ASSIGN_OR_RETURN(std::unique_ptr<KubeApi> api, ConnectKubeApi(options));
//   TP_ASSIGN_OR_RETURN(KubeReply r, api->Send("GET", "/api/v1/pods?limit=1", ""));
#ifndef TOPOPLACE_PLUGINS_K8S_EXTENDER_KUBE_API_H_
#define TOPOPLACE_PLUGINS_K8S_EXTENDER_KUBE_API_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace topoplace::k8s {

struct KubeReply {
  int status = 0;    // the HTTP status (200, 201, 404, 409, ...)
  std::string body;  // JSON: the object, a list, or a v1.Status
};

// Implementations are thread-safe.
class KubeApi {
 public:
  virtual ~KubeApi() = default;
  // `method` GET or POST, `path` from the API root ("/apis/..."), `body` JSON or empty.
  // Unavailable when the server cannot be reached; any HTTP status is a reply.
  virtual absl::StatusOr<KubeReply> Send(absl::string_view method, absl::string_view path,
                                         absl::string_view body) = 0;
};

struct KubeApiOptions {
  // "https://host:port", or "in-cluster": KUBERNETES_SERVICE_HOST and _PORT with the pod's
  // service account token and CA (/var/run/secrets/kubernetes.io/serviceaccount).
  std::string server;
  std::string token_file;  // bearer token; in-cluster default: the service account's
  std::string ca_file;     // PEM CA the server's certificate must chain to; in-cluster default
  double timeout_seconds = 5;
};

// An HTTPS client of the API server (cpp-httplib, certificate verified against ca_file).
// InvalidArgument for a server that is not https://host:port or "in-cluster"; NotFound
// when the token or CA file cannot be read.
absl::StatusOr<std::unique_ptr<KubeApi>> ConnectKubeApi(const KubeApiOptions& options);

}  // namespace topoplace::k8s

#endif  // TOPOPLACE_PLUGINS_K8S_EXTENDER_KUBE_API_H_
