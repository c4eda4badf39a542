#include "plugins/common/http_listener.h"

#include <httplib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace topoplace::plugins {

// Counts the listener's open connections. The accept loop calls Enter for each connection
// it accepted, before handing it to a worker, and waits there while `max` are open: it
// accepts nothing more meanwhile. Stop lets it through, so Shutdown never waits on it.
class ConnectionGate {
 public:
  explicit ConnectionGate(int max) : max_(max) {}
  void Enter() {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(this, &ConnectionGate::HasRoom));
    ++open_;
  }
  void Leave() {
    absl::MutexLock lock(&mu_);
    --open_;
  }
  void Stop() {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }

 private:
  bool HasRoom() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || open_ < max_; }
  const int max_;
  absl::Mutex mu_;
  int open_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
};

namespace {

// The kernel caps it at net.core.somaxconn (4096 by default since Linux 5.4).
constexpr int kListenBacklog = 1024;

// httplib's pool of workers behind the gate: a connection counts from its accept until
// its worker closed it.
class GatedPool final : public httplib::TaskQueue {
 public:
  GatedPool(size_t workers, std::shared_ptr<ConnectionGate> gate)
      : pool_(workers), gate_(std::move(gate)) {}
  void enqueue(std::function<void()> fn) override {
    gate_->Enter();
    pool_.enqueue([fn = std::move(fn), gate = gate_] {
      fn();
      gate->Leave();
    });
  }
  void shutdown() override { pool_.shutdown(); }

 private:
  httplib::ThreadPool pool_;
  std::shared_ptr<ConnectionGate> gate_;
};

absl::Status CheckReadable(const std::string& path, const char* what) {
  if (access(path.c_str(), R_OK) != 0) {
    return absl::NotFoundError(absl::StrCat(what, " '", path, "' cannot be read"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<httplib::Server>> MakeServer(const HttpListenerOptions& options) {
  const bool tls = !options.tls_cert_file.empty() || !options.tls_key_file.empty();
  if (!tls) {
    if (!options.tls_client_ca_file.empty()) {
      return absl::InvalidArgumentError("a TLS client CA needs a TLS certificate and key");
    }
    return std::make_unique<httplib::Server>();
  }
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
  return ssl;
}

}  // namespace

absl::StatusOr<std::unique_ptr<HttpListener>> HttpListener::Create(
    const HttpListenerOptions& options) {
  const size_t colon = options.listen.rfind(':');
  int port = -1;
  if (colon == std::string::npos || !absl::SimpleAtoi(options.listen.substr(colon + 1), &port) ||
      port < 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("listen address must be host:port, got '", options.listen, "'"));
  }
  if (options.max_body_bytes == 0 || options.worker_threads < 1 ||
      options.read_timeout_seconds < 1) {
    return absl::InvalidArgumentError(
        "max body bytes, worker threads and read timeout must be positive");
  }
  if (options.max_connections < options.worker_threads) {
    return absl::InvalidArgumentError(absl::StrCat("max connections (", options.max_connections,
                                                   ") must be at least the worker threads (",
                                                   options.worker_threads, ")"));
  }
  absl::StatusOr<std::unique_ptr<httplib::Server>> server = MakeServer(options);
  if (!server.ok()) return server.status();
  auto listener = std::unique_ptr<HttpListener>(new HttpListener());
  listener->server_ = *std::move(server);
  listener->host_ = options.listen.substr(0, colon);
  listener->requested_port_ = port;
  listener->listen_ = options.listen;
  listener->tls_ = !options.tls_cert_file.empty();
  httplib::Server& s = *listener->server_;
  s.set_payload_max_length(options.max_body_bytes);
  s.set_read_timeout(options.read_timeout_seconds, 0);
  s.set_write_timeout(options.read_timeout_seconds, 0);
  s.set_keep_alive_timeout(options.read_timeout_seconds);
  // A keep-alive connection is served by one worker for its whole life; bound it.
  s.set_keep_alive_max_count(100);
  // Headers and body go out in separate writes: without TCP_NODELAY a small answer on a
  // kept-alive connection waits for the peer's delayed ACK (40 ms on Linux).
  s.set_tcp_nodelay(true);
  HttpListener* raw = listener.get();
  s.set_socket_options([raw](socket_t sock) {
    httplib::default_socket_options(sock);
    raw->listen_fd_ = sock;  // the last one tried is the one bound
  });
  listener->gate_ = std::make_shared<ConnectionGate>(options.max_connections);
  s.new_task_queue = [n = options.worker_threads, gate = listener->gate_] {
    return new GatedPool(static_cast<size_t>(n), gate);
  };
  return listener;
}

absl::Status HttpListener::Start() {
  const int bound = requested_port_ == 0
                        ? server_->bind_to_any_port(host_)
                        : (server_->bind_to_port(host_, requested_port_) ? requested_port_ : -1);
  if (bound <= 0) return absl::UnavailableError(absl::StrCat("cannot listen on '", listen_, "'"));
  port_ = bound;
  // listen() again on a listening socket only changes its backlog.
  if (listen_fd_ >= 0 && ::listen(listen_fd_, kListenBacklog) != 0) {
    return absl::InternalError(absl::StrCat("cannot widen the backlog of '", listen_, "'"));
  }
  httplib::Server* raw = server_.get();
  thread_ = std::thread([raw] { raw->listen_after_bind(); });
  // stop() is a no-op until the loop runs; wait for it so Shutdown() always ends it.
  for (int i = 0; i < 5000 && !raw->is_running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return absl::OkStatus();
}

void HttpListener::Shutdown() {
  if (gate_ != nullptr) gate_->Stop();  // an accept loop waiting for room goes on to stop
  if (server_ != nullptr) server_->stop();
  if (thread_.joinable()) thread_.join();
}

HttpListener::~HttpListener() { Shutdown(); }

}  // namespace topoplace::plugins
