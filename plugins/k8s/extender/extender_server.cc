#include "plugins/k8s/extender/extender_server.h"

#include <httplib.h>

#include <algorithm>
#include <utility>

namespace topoplace::k8s {

absl::StatusOr<std::unique_ptr<ExtenderServer>> ExtenderServer::Start(const ServerOptions& options,
                                                                      ExtenderHandlers& handlers) {
  if (options.tls_client_ca_file.empty() && !options.insecure) {
    return absl::InvalidArgumentError(
        "refusing to serve without client authentication: anyone who reaches the extender "
        "could reserve GPUs with its credentials. Give --tls-cert, --tls-key and "
        "--tls-client-ca (kube-scheduler's extender tlsConfig certFile/keyFile present its "
        "client certificate), or --insecure for a listener only trusted callers reach");
  }
  absl::StatusOr<std::unique_ptr<plugins::HttpListener>> listener =
      plugins::HttpListener::Create({.listen = options.listen,
                                     .tls_cert_file = options.tls_cert_file,
                                     .tls_key_file = options.tls_key_file,
                                     .tls_client_ca_file = options.tls_client_ca_file,
                                     .max_body_bytes = options.max_body_bytes,
                                     .worker_threads = options.worker_threads,
                                     .read_timeout_seconds = options.read_timeout_seconds,
                                     .max_connections = std::max(256, options.worker_threads)});
  if (!listener.ok()) return listener.status();
  httplib::Server* server = &(*listener)->server();

  auto answer = [](httplib::Response& res, const HttpAnswer& a) {
    res.status = a.status;
    res.set_content(a.body, "application/json");
  };
  server->Post(R"((/.*)?/filter)",
               [&handlers, answer](const httplib::Request& req, httplib::Response& res) {
                 answer(res, handlers.Filter(req.body));
               });
  server->Post(R"((/.*)?/prioritize)",
               [&handlers, answer](const httplib::Request& req, httplib::Response& res) {
                 answer(res, handlers.Prioritize(req.body));
               });
  server->Post(R"((/.*)?/preempt)",
               [&handlers, answer](const httplib::Request& req, httplib::Response& res) {
                 answer(res, handlers.Preempt(req.body));
               });
  server->Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain");
  });

  if (absl::Status s = (*listener)->Start(); !s.ok()) return s;
  return std::unique_ptr<ExtenderServer>(new ExtenderServer(*std::move(listener)));
}

ExtenderServer::ExtenderServer(std::unique_ptr<plugins::HttpListener> listener)
    : listener_(std::move(listener)) {}

ExtenderServer::~ExtenderServer() { Shutdown(); }

int ExtenderServer::port() const { return listener_->port(); }

void ExtenderServer::Shutdown() { listener_->Shutdown(); }

}  // namespace topoplace::k8s
