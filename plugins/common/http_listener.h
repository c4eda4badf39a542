// An HTTP(S) listener on cpp-httplib, shared by the daemon's web console and the
// Kubernetes scheduler extender: parses host:port, sets up TLS (certificate chain and key;
// with a client CA, client certificates are required: mTLS), bounds workers, slow clients
// and open connections, and serves on its own thread once routes are added.
//
// At most max_connections accepted connections are open at once (served or waiting for a
// worker); past that the listener stops accepting until one closes, so further clients
// wait in the kernel's backlog and cost this process no descriptor. (Hardening round four,
// finding 5: 4,200 idle console connections took every descriptor of the daemon, and
// gRPC, whose accept failed with EMFILE, never accepted again.) The backlog holds
// kListenBacklog connections: httplib's own is 5, so a burst of more than six connects
// (the console's relay opens one per client) lost SYNs and waited a second for each retry.
//
//   TP_ASSIGN_OR_RETURN(auto listener, HttpListener::Create(options));
//   listener->server().Get("/healthz", ...);        // routes, before Start
//   TP_RETURN_IF_ERROR(listener->Start());
//   std::cout << listener->port();
//   listener->Shutdown();
//
// Thread-safe after Start; Shutdown is idempotent and also runs in the destructor.
#ifndef TOPOPLACE_PLUGINS_COMMON_HTTP_LISTENER_H_
#define TOPOPLACE_PLUGINS_COMMON_HTTP_LISTENER_H_

#include <cstddef>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace httplib {
class Server;
}

namespace topoplace::plugins {

class ConnectionGate;

struct HttpListenerOptions {
  std::string listen = "127.0.0.1:0";  // host:port; port 0 picks a free port
  std::string tls_cert_file;           // PEM chain; with tls_key_file: HTTPS
  std::string tls_key_file;
  std::string tls_client_ca_file;  // with TLS: require client certificates signed by it
  size_t max_body_bytes = size_t{1} << 20;
  // Workers serving connections; a keep-alive or streaming connection holds one.
  int worker_threads = 16;
  // Seconds a connection may stay silent (headers, body, keep-alive) before it is closed.
  int read_timeout_seconds = 5;
  // Accepted connections open at once, at least worker_threads: one descriptor each.
  int max_connections = 256;
};

class HttpListener {
 public:
  // Checks the options and builds the server, not yet bound. InvalidArgument for a bad
  // listen address, a lone TLS file, non-positive limits or TLS files that do not load;
  // NotFound for unreadable TLS files.
  static absl::StatusOr<std::unique_ptr<HttpListener>> Create(const HttpListenerOptions& options);
  ~HttpListener();
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  // Where routes are added (before Start).
  httplib::Server& server() { return *server_; }
  bool tls() const { return tls_; }
  // Binds and starts serving on a thread. Unavailable if the address cannot be bound.
  absl::Status Start();
  // The bound port (after Start).
  int port() const { return port_; }
  // Stops accepting, ends the serving thread. Requests still running finish first.
  void Shutdown();

 private:
  HttpListener() = default;
  std::unique_ptr<httplib::Server> server_;
  std::string host_;
  int requested_port_ = 0;
  std::string listen_;
  bool tls_ = false;
  int port_ = 0;
  int listen_fd_ = -1;  // the listening socket, once bound (httplib keeps and closes it)
  std::shared_ptr<ConnectionGate> gate_;
  std::thread thread_;
};

}  // namespace topoplace::plugins

#endif  // TOPOPLACE_PLUGINS_COMMON_HTTP_LISTENER_H_
