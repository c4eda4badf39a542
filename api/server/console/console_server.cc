#include "api/server/console/console_server.h"

#include <httplib.h>

#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "api/server/console/console_assets.h"
#include "api/server/console/console_views.h"
#include "nlohmann/json.hpp"

namespace topoplace::server {
namespace {

// Streams of server-sent events hold a worker each; at most a quarter of the workers
// serve them, so the rest always serve pages and documents (hardening round four, finding
// 5: 32 held streams took all 32 workers and every page timed out). A stream past the
// share is answered 503 with Retry-After; the page's EventSource tries again by itself.
constexpr int kWorkers = 32;
constexpr int kMaxEventStreams = kWorkers / 4;

int HttpStatusOf(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kInvalidArgument:
      return 400;
    case absl::StatusCode::kUnavailable:
      return 503;
    default:
      return 500;
  }
}

// The token a request carries: basic auth's password or a bearer token; empty if none.
std::string TokenOf(const httplib::Request& req) {
  const std::string header = req.get_header_value("Authorization");
  if (absl::StartsWith(header, "Bearer ")) return header.substr(7);
  std::string decoded;
  if (absl::StartsWith(header, "Basic ") && absl::Base64Unescape(header.substr(6), &decoded)) {
    const size_t colon = decoded.find(':');
    if (colon != std::string::npos) return decoded.substr(colon + 1);
  }
  return "";
}

std::string ErrorJson(absl::string_view message) {
  return nlohmann::json{{"error", message}}.dump(-1, ' ', false,
                                                 nlohmann::json::error_handler_t::replace);
}

void SetCommonHeaders(httplib::Response& res) {
  // Only the console's own scripts and styles, nothing inline, nothing from elsewhere:
  // names from a fabric file or an agent report cannot run as script.
  res.set_header("Content-Security-Policy",
                 "default-src 'self'; img-src 'self' data:; object-src 'none'; "
                 "base-uri 'none'; frame-ancestors 'none'");
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Referrer-Policy", "no-referrer");
}

void Answer(httplib::Response& res, const absl::StatusOr<std::string>& body) {
  res.set_header("Cache-Control", "no-store");
  if (body.ok()) {
    res.set_content(*body, "application/json");
    return;
  }
  res.status = HttpStatusOf(body.status());
  res.set_content(ErrorJson(body.status().message()), "application/json");
}

// Common headers on every answer; when `needs_token`, 401 to a request whose token
// `authorizer` does not accept.
void RequireToken(httplib::Server& server, bool needs_token, const Authorizer& authorizer_ref) {
  const Authorizer* authorizer = &authorizer_ref;
  server.set_pre_routing_handler(
      [needs_token, authorizer](const httplib::Request& req, httplib::Response& res) {
        SetCommonHeaders(res);
        if (!needs_token || authorizer->AcceptsToken(TokenOf(req))) {
          return httplib::Server::HandlerResponse::Unhandled;
        }
        res.status = 401;
        res.set_header("WWW-Authenticate", "Basic realm=\"topoplace console\", charset=\"UTF-8\"");
        res.set_content(ErrorJson("credentials needed: a topoplace token as the password"),
                        "application/json");
        return httplib::Server::HandlerResponse::Handled;
      });
}

// The page and its assets.
void RouteAssets(httplib::Server& server) {
  for (int i = 0; i < kConsoleAssetCount; ++i) {
    const ConsoleAsset& asset = kConsoleAssets[i];
    auto serve = [&asset](const httplib::Request&, httplib::Response& res) {
      res.set_content(asset.content, asset.content_type);
    };
    server.Get(asset.path, serve);
    if (absl::string_view(asset.path) == "/index.html") server.Get("/", serve);
  }
}

// The JSON views the page reads (console_views.h).
void RouteViews(httplib::Server& server, const ServiceContext& context) {
  const ServiceContext* ctx = &context;
  server.Get("/api/v1/snapshot", [ctx](const httplib::Request&, httplib::Response& res) {
    Answer(res, SnapshotJson(*ctx, absl::Now()));
  });
  server.Get("/api/v1/allocations", [ctx](const httplib::Request&, httplib::Response& res) {
    Answer(res, AllocationsJson(*ctx, absl::Now()));
  });
  server.Get(R"(/api/v1/jobs/([^/]+))", [ctx](const httplib::Request& req, httplib::Response& res) {
    Answer(res, JobJson(*ctx, req.matches[1].str(), absl::Now()));
  });
  server.Get("/api/v1/links", [ctx](const httplib::Request&, httplib::Response& res) {
    Answer(res, LinksJson(*ctx, absl::Now()));
  });
  server.Get("/api/v1/capacity", [ctx](const httplib::Request&, httplib::Response& res) {
    Answer(res, CapacityJson(*ctx, absl::Now()));
  });
}

// The change feed as server-sent events, at most kMaxEventStreams at once.
void RouteEvents(httplib::Server& server, ChangeFeed& feed, absl::Duration heartbeat_every) {
  auto streams = std::make_shared<std::atomic<int>>(0);
  server.Get("/api/v1/events", [&feed, streams, heartbeat = heartbeat_every](
                                   const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-store");
    if (streams->fetch_add(1) >= kMaxEventStreams) {
      streams->fetch_sub(1);
      res.status = 503;
      res.set_header("Retry-After", "10");
      res.set_header("Connection", "close");
      res.set_content(ErrorJson(absl::StrCat("the console serves ", kMaxEventStreams,
                                             " event streams at once; try again later")),
                      "application/json");
      return;
    }
    const uint64_t start = feed.last();
    res.set_chunked_content_provider(
        "text/event-stream",
        [&feed, heartbeat, seen = start, hello = true](size_t, httplib::DataSink& sink) mutable {
          if (hello) {
            // Tells the page the stream is open (and from which change on).
            hello = false;
            const std::string open = absl::StrCat("event: hello\ndata: {\"seq\":", seen, "}\n\n");
            return sink.write(open.data(), open.size());
          }
          const std::vector<ChangeFeed::Change> changes = feed.WaitAfter(seen, heartbeat);
          if (!sink.is_writable()) return false;
          std::string out;
          for (const ChangeFeed::Change& c : changes) {
            absl::StrAppend(&out, "event: ", c.topic, "\ndata: {\"seq\":", c.seq, "}\n\n");
            seen = c.seq;
          }
          if (changes.empty()) {
            if (feed.closed()) return false;  // the daemon is stopping
            out = ": heartbeat\n\n";
          }
          return sink.write(out.data(), out.size());
        },
        // Runs when the response is destroyed, however the stream ended.
        [streams](bool) { streams->fetch_sub(1); });
  });
}

}  // namespace

absl::StatusOr<std::unique_ptr<ConsoleServer>> ConsoleServer::Start(const ConsoleOptions& options,
                                                                    const ServiceContext& context,
                                                                    ChangeFeed& feed) {
  plugins::HttpListenerOptions listener_options = options.listener;
  listener_options.worker_threads = std::max(listener_options.worker_threads, kWorkers);
  listener_options.max_connections =
      std::max(listener_options.max_connections, listener_options.worker_threads);
  // A relay owns the address and times each request's answer; the listener serves on
  // loopback behind it (TLS, when set, runs end to end through the relay).
  const bool relayed = options.head_timeout > absl::ZeroDuration();
  const bool tls = !options.listener.tls_cert_file.empty();
  if (relayed) listener_options.listen = "127.0.0.1:0";
  absl::StatusOr<std::unique_ptr<plugins::HttpListener>> listener =
      plugins::HttpListener::Create(listener_options);
  if (!listener.ok()) return listener.status();
  httplib::Server& server = (*listener)->server();
  // With a client CA the TLS handshake already verified the caller's certificate.
  const bool needs_token =
      options.authenticated_reads && options.listener.tls_client_ca_file.empty();
  RequireToken(server, needs_token, context.authorizer);
  RouteAssets(server);
  RouteViews(server, context);
  RouteEvents(server, feed, options.heartbeat);
  server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty()) {
      res.set_content(ErrorJson(absl::StrCat("HTTP ", res.status)), "application/json");
    }
  });
  if (absl::Status s = (*listener)->Start(); !s.ok()) return s;
  std::unique_ptr<ConnectionRelay> relay;
  if (relayed) {
    absl::StatusOr<std::unique_ptr<ConnectionRelay>> started = ConnectionRelay::Start(
        options.listener.listen, (*listener)->port(),
        {.max_total = listener_options.max_connections,
         .max_per_peer = listener_options.max_connections,
         .handshake_timeout = absl::InfiniteDuration(),  // a GET may be under 24 bytes
         .http_head_timeout = tls ? absl::ZeroDuration() : options.head_timeout,
         .reply_timeout = tls ? options.head_timeout : absl::ZeroDuration()});
    if (!started.ok()) {
      (*listener)->Shutdown();
      return started.status();
    }
    relay = *std::move(started);
  }
  return std::unique_ptr<ConsoleServer>(new ConsoleServer(*std::move(listener), std::move(relay)));
}

}  // namespace topoplace::server
