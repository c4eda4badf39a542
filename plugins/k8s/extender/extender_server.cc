#include "plugins/k8s/extender/extender_server.h"

#include <httplib.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace topoplace::k8s {
namespace {

absl::Status CheckReadable(const std::string& path, const char* what) {
  if (access(path.c_str(), R_OK) != 0) {
    return absl::NotFoundError(absl::StrCat(what, " '", path, "' cannot be read"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<ExtenderServer>> ExtenderServer::Start(const ServerOptions& options,
                                                                      ExtenderHandlers& handlers) {
  const size_t colon = options.listen.rfind(':');
  int port = -1;
  if (colon == std::string::npos || !absl::SimpleAtoi(options.listen.substr(colon + 1), &port) ||
      port < 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("listen address must be host:port, got '", options.listen, "'"));
  }
  const std::string host = options.listen.substr(0, colon);
  const bool tls = !options.tls_cert_file.empty() || !options.tls_key_file.empty();
  std::unique_ptr<httplib::Server> server;
  if (tls) {
    if (options.tls_cert_file.empty() || options.tls_key_file.empty()) {
      return absl::InvalidArgumentError("TLS needs both a certificate and a key file");
    }
    if (absl::Status s = CheckReadable(options.tls_cert_file, "TLS certificate"); !s.ok()) return s;
    if (absl::Status s = CheckReadable(options.tls_key_file, "TLS key"); !s.ok()) return s;
    const char* client_ca = nullptr;
    if (!options.tls_client_ca_file.empty()) {
      if (absl::Status s = CheckReadable(options.tls_client_ca_file, "TLS client CA"); !s.ok()) {
        return s;
      }
      client_ca = options.tls_client_ca_file.c_str();
    }
    auto ssl = std::make_unique<httplib::SSLServer>(options.tls_cert_file.c_str(),
                                                    options.tls_key_file.c_str(), client_ca);
    if (!ssl->is_valid()) {
      return absl::InvalidArgumentError("TLS certificate, key or client CA could not be loaded");
    }
    server = std::move(ssl);
  } else if (!options.tls_client_ca_file.empty()) {
    return absl::InvalidArgumentError("a TLS client CA needs a TLS certificate and key");
  } else {
    server = std::make_unique<httplib::Server>();
  }
  if (options.tls_client_ca_file.empty() && !options.insecure) {
    return absl::InvalidArgumentError(
        "refusing to serve without client authentication: anyone who reaches the extender "
        "could reserve GPUs with its credentials. Give --tls-cert, --tls-key and "
        "--tls-client-ca (kube-scheduler's extender tlsConfig certFile/keyFile present its "
        "client certificate), or --insecure for a listener only trusted callers reach");
  }
  if (options.max_body_bytes == 0 || options.worker_threads < 1 ||
      options.read_timeout_seconds < 1) {
    return absl::InvalidArgumentError(
        "max body bytes, worker threads and read timeout must be positive");
  }
  server->set_payload_max_length(options.max_body_bytes);
  server->set_read_timeout(options.read_timeout_seconds, 0);
  server->set_write_timeout(options.read_timeout_seconds, 0);
  server->set_keep_alive_timeout(options.read_timeout_seconds);
  // A keep-alive connection is served by one worker for its whole life; bound it.
  server->set_keep_alive_max_count(100);
  server->new_task_queue = [n = options.worker_threads] {
    return new httplib::ThreadPool(static_cast<size_t>(n));
  };

  auto answer = [](httplib::Response& res, HttpAnswer a) {
    res.status = a.status;
    res.set_content(std::move(a.body), "application/json");
  };
  server->Post(R"((/.*)?/filter)",
               [&handlers, answer](const httplib::Request& req, httplib::Response& res) {
                 answer(res, handlers.Filter(req.body));
               });
  server->Post(R"((/.*)?/prioritize)",
               [&handlers, answer](const httplib::Request& req, httplib::Response& res) {
                 answer(res, handlers.Prioritize(req.body));
               });
  server->Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain");
  });

  const int bound =
      port == 0 ? server->bind_to_any_port(host) : (server->bind_to_port(host, port) ? port : -1);
  if (bound <= 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on '", options.listen, "'"));
  }
  auto result = std::unique_ptr<ExtenderServer>(new ExtenderServer(std::move(server), bound));
  httplib::Server* raw = result->server_.get();
  result->thread_ = std::thread([raw] { raw->listen_after_bind(); });
  // stop() is a no-op until the loop runs; wait for it so Shutdown() always ends it.
  for (int i = 0; i < 5000 && !raw->is_running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return result;
}

ExtenderServer::ExtenderServer(std::unique_ptr<httplib::Server> server, int port)
    : server_(std::move(server)), port_(port) {}

ExtenderServer::~ExtenderServer() { Shutdown(); }

void ExtenderServer::Shutdown() {
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace topoplace::k8s
