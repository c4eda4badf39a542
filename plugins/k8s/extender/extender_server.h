// The extender's HTTP(S) listener (cpp-httplib): POST <prefix>/filter and
// <prefix>/prioritize (any prefix, e.g. the urlPrefix "http://host:port/topoplace" of the
// KubeSchedulerConfiguration), GET /healthz. TLS options are the daemon's (certificate
// chain and key; with a client CA, client certificates are required).
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
#include <thread>

#include "absl/status/statusor.h"
#include "plugins/k8s/extender/extender_handlers.h"

namespace httplib {
class Server;
}

namespace topoplace::k8s {

struct ServerOptions {
  std::string listen = "127.0.0.1:8888";  // host:port; port 0 picks a free port
  std::string tls_cert_file;              // PEM chain; with tls_key_file: HTTPS
  std::string tls_key_file;
  std::string tls_client_ca_file;  // with TLS: require client certificates
};

class ExtenderServer {
 public:
  // Binds and starts serving. InvalidArgument for a bad listen address or a lone TLS file,
  // NotFound for unreadable TLS files, Unavailable if the port cannot be bound.
  // `handlers` must outlive the server.
  static absl::StatusOr<std::unique_ptr<ExtenderServer>> Start(const ServerOptions& options,
                                                               ExtenderHandlers& handlers);
  ~ExtenderServer();  // shuts down

  int port() const { return port_; }
  // Stops accepting and waits for the serving thread; idempotent.
  void Shutdown();

 private:
  ExtenderServer(std::unique_ptr<httplib::Server> server, int port);

  std::unique_ptr<httplib::Server> server_;
  int port_;
  std::thread thread_;
};

}  // namespace topoplace::k8s

#endif  // TOPOPLACE_PLUGINS_K8S_EXTENDER_EXTENDER_SERVER_H_
