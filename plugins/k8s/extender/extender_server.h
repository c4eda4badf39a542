// The extender's HTTP(S) listener (cpp-httplib): POST <prefix>/filter,
// <prefix>/prioritize and <prefix>/preempt (any prefix, e.g. the urlPrefix
// "http://host:port/topoplace" of the KubeSchedulerConfiguration), GET /healthz. TLS options are
// the daemon's (certificate chain and key; with a client CA, client certificates are required). The
// extender reserves GPUs with its own credentials for whoever calls it, so it will not start
// without client authentication (mTLS: kube-scheduler's extender tlsConfig) unless
// `insecure` says so.
//
// Hostile input: bodies over max_body_bytes get 413 before they are read whole; JSON
// nested deeper than kMaxJsonDepth gets 400 before it is parsed (extender_wire.h); a
// connection that sends nothing for read_timeout is closed, so slow clients hold a
// worker for at most that long, and worker_threads of them are needed to make others
// wait.
//
//   TP_ASSIGN_OR_RETURN(auto server, ExtenderServer::Start(options, handlers));
//   std::cout << server->port();
//   server->Shutdown();
//
// Thread-safe; requests are served on the library's thread pool.
#ifndef TOPOPLACE_PLUGINS_K8S_EXTENDER_EXTENDER_SERVER_H_
#define TOPOPLACE_PLUGINS_K8S_EXTENDER_EXTENDER_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "plugins/common/http_listener.h"
#include "plugins/k8s/extender/extender_handlers.h"

namespace topoplace::k8s {

struct ServerOptions {
  std::string listen = "127.0.0.1:8888";  // host:port; port 0 picks a free port
  std::string tls_cert_file;              // PEM chain; with tls_key_file: HTTPS
  std::string tls_key_file;
  std::string tls_client_ca_file;  // with TLS: require client certificates
  // Serve without client authentication (plain HTTP or TLS without a client CA). Only
  // for tests and a loopback listener no one else reaches.
  bool insecure = false;
  // Largest request body: ExtenderArgs with nodeCacheCapable: true carry node names
  // (5,000 nodes, Kubernetes' supported maximum, take about 150 KB); with false, whole
  // Node objects of 5 to 15 KB each, so 16 MiB holds about 1,000 of them.
  size_t max_body_bytes = size_t{16} << 20;
  // Workers serving connections. Bodies in flight take at most workers x max_body_bytes.
  int worker_threads = 16;
  // Seconds a connection may stay silent (headers, body, keep-alive) before it is closed.
  int read_timeout_seconds = 5;
};

class ExtenderServer {
 public:
  // Binds and starts serving. InvalidArgument for a bad listen address or a lone TLS file,
  // NotFound for unreadable TLS files, Unavailable if the port cannot be bound.
  // `handlers` must outlive the server.
  static absl::StatusOr<std::unique_ptr<ExtenderServer>> Start(const ServerOptions& options,
                                                               ExtenderHandlers& handlers);
  ~ExtenderServer();  // shuts down

  int port() const;
  // Stops accepting and waits for the serving thread; idempotent.
  void Shutdown();

 private:
  explicit ExtenderServer(std::unique_ptr<plugins::HttpListener> listener);

  std::unique_ptr<plugins::HttpListener> listener_;
};

}  // namespace topoplace::k8s

#endif  // TOPOPLACE_PLUGINS_K8S_EXTENDER_EXTENDER_SERVER_H_
