// The daemon's read-only web console: pages compiled into the binary (console_assets.h),
// the versioned JSON documents behind them (console_views.h) under /api/v1/, and
// /api/v1/events, a server-sent event stream of the daemon's changes (change_feed.h) so
// pages update within a second of a reservation, release or health change.
//
// At most a quarter of the console's 32 workers serve event streams (more are answered
// 503 with Retry-After), at most listener.max_connections connections are open at once
// (http_listener.h), and a request head must be whole within head_timeout of its first
// byte (over TLS, where the relay in front cannot read heads: the request must be
// answered within it), so neither held streams, idle connections nor headers sent a byte
// at a time take the pages or the daemon's descriptors.
//
// Reads follow the gRPC reads' rules: with read_access "open" anyone may look; with
// "authenticated" a request needs the admin or a host token (HTTP basic auth, any user
// name and the token as password, which browsers ask for; or "Authorization: Bearer")
// or, on a listener with a TLS client CA, a verified client certificate. Every response
// carries a Content-Security-Policy that allows only the console's own scripts.
//
//   TP_ASSIGN_OR_RETURN(auto console, ConsoleServer::Start(options, context, feed));
//   std::cout << console->port();
//
// `context` and `feed` must outlive the server. Thread-safe; Shutdown is idempotent and
// ends open event streams (call feed.Close() first, or they end at their next heartbeat).
#ifndef TOPOPLACE_API_SERVER_CONSOLE_CONSOLE_SERVER_H_
#define TOPOPLACE_API_SERVER_CONSOLE_CONSOLE_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "api/server/console/change_feed.h"
#include "api/server/guards/connection_relay.h"
#include "api/server/services/service_context.h"
#include "plugins/common/http_listener.h"

namespace topoplace::server {

struct ConsoleOptions {
  plugins::HttpListenerOptions listener;  // address, TLS (and client CA for mTLS)
  bool authenticated_reads = false;       // ServerConfig::read_access == "authenticated"
  // An idle event stream sends a comment this often, so proxies keep it and a closed
  // browser tab frees its worker.
  absl::Duration heartbeat = absl::Seconds(10);
  // A request head not whole this long after its first byte closes its connection, so
  // clients sending their headers a byte at a time cannot hold the workers; over TLS the
  // request must be answered within it (a relay in front of the listener times both:
  // connection_relay.h). 0: no relay.
  absl::Duration head_timeout = absl::Seconds(10);
};

class ConsoleServer {
 public:
  // Binds and serves. InvalidArgument / NotFound / Unavailable as HttpListener::Create and
  // Start say.
  static absl::StatusOr<std::unique_ptr<ConsoleServer>> Start(const ConsoleOptions& options,
                                                              const ServiceContext& context,
                                                              ChangeFeed& feed);
  int port() const { return relay_ != nullptr ? relay_->port() : listener_->port(); }
  void Shutdown() {
    if (relay_ != nullptr) relay_->Stop();
    listener_->Shutdown();
  }

 private:
  ConsoleServer(std::unique_ptr<plugins::HttpListener> listener,
                std::unique_ptr<ConnectionRelay> relay)
      : listener_(std::move(listener)), relay_(std::move(relay)) {}
  std::unique_ptr<plugins::HttpListener> listener_;
  std::unique_ptr<ConnectionRelay> relay_;  // in front of a plaintext listener
};

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_CONSOLE_CONSOLE_SERVER_H_
