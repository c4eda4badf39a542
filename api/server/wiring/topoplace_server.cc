#include "api/server/wiring/topoplace_server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/impl/server_builder_option.h>
#include <grpcpp/impl/server_builder_plugin.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_builder.h>
#include <sys/resource.h>

#include <algorithm>
#include <iostream>
#include <map>

#include "absl/strings/str_cat.h"
#include "api/server/guards/malformed_request_interceptor.h"
#include "api/server/services/placement_service.h"
#include "api/server/services/telemetry_service.h"
#include "api/server/services/topology_service.h"
#include "api/server/wiring/rpc_metrics_interceptor.h"
#include "base/input_file.h"
#include "base/status_macros.h"
#include "topology/io/fabric_file.h"

namespace topoplace::server {
namespace {

// Calls still running this long after Shutdown are cancelled (e.g. WatchFabric streams).
constexpr absl::Duration kShutdownGrace = absl::Seconds(2);

// Reflection lists every method and message to anyone, answered by gRPC before any of our
// checks: with read_access=authenticated it is left out. (Linking the reflection library
// registers its plugin for every builder, so it is removed per builder, here.)
class WithoutReflection final : public grpc::ServerBuilderOption {
 public:
  void UpdateArguments(grpc::ChannelArguments*) override {}
  void UpdatePlugins(std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>* plugins) override {
    std::erase_if(*plugins, [](const std::unique_ptr<grpc::ServerBuilderPlugin>& p) {
      return p->name() == "proto_server_reflection";
    });
  }
};

absl::StatusOr<std::string> ReadPem(absl::string_view key, const std::string& path) {
  return ReadInputFile(path, kMaxCredentialFileBytes, key);
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> Credentials(const ServerConfig& config) {
  if (config.tls_cert_file.empty()) return grpc::InsecureServerCredentials();
  grpc::SslServerCredentialsOptions options;
  grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
  TP_ASSIGN_OR_RETURN(pair.cert_chain, ReadPem("tls_cert_file", config.tls_cert_file));
  TP_ASSIGN_OR_RETURN(pair.private_key, ReadPem("tls_key_file", config.tls_key_file));
  options.pem_key_cert_pairs.push_back(std::move(pair));
  if (!config.tls_client_ca_file.empty()) {
    TP_ASSIGN_OR_RETURN(options.pem_root_certs,
                        ReadPem("tls_client_ca_file", config.tls_client_ca_file));
    options.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(options);
}

// With read_access=authenticated, a scrape needs basic auth whose password is a token
// (Prometheus: basic_auth.password_file); any user name. Open reads: /metrics is open.
telemetry::MetricsServer::BasicAuthCheck MetricsAuth(const ServerConfig& config,
                                                     const Authorizer& authorizer) {
  if (config.read_access == "open") return nullptr;
  return [&authorizer](const std::string&, const std::string& password) {
    return authorizer.AcceptsToken(password);
  };
}

// Where a client on this host reaches a listener on `listen` ("HOST:PORT") bound to `port`:
// a wildcard host as loopback.
std::string ProbeTarget(const std::string& listen, int port) {
  std::string host = listen.substr(0, listen.rfind(':'));
  if (host.empty() || host == "0.0.0.0" || host == "*") host = "127.0.0.1";
  if (host == "[::]" || host == "::") host = "[::1]";
  return absl::StrCat(host, ":", port);
}

// The process's open-file limit (after RaiseOpenFileLimit); 2^20 when unlimited.
int64_t OpenFileLimit() {
  rlimit limit{};
  return getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
             ? static_cast<int64_t>(limit.rlim_cur)
             : int64_t{1} << 20;
}

// The relay's connections within the open-file limit: three descriptors each (the
// client's, the relay's to gRPC, gRPC's), 512 left for everything else, at least 16.
// (Hardening round four, finding 8: run by hand with a hard limit of 1,024, 1,100 idle
// connections took every descriptor and gRPC never accepted again.)
int RelayConnectionBudget(const ServerConfig& config) {
  const int64_t fits = (OpenFileLimit() - 512) / 3;
  return static_cast<int>(std::min<int64_t>(config.max_connections, std::max<int64_t>(fits, 16)));
}

// The console's share of the daemon's descriptors: what the open-file limit leaves after
// the relay's connections and 512 for everything else (stores, etcd, metrics, logs), a
// quarter of it, between the console's 32 workers and 256.
int ConsoleConnectionBudget(const ServerConfig& config) {
  const int64_t left = OpenFileLimit() - 3 * int64_t{RelayConnectionBudget(config)} - 512;
  return static_cast<int>(std::clamp<int64_t>(left / 4, 32, 256));
}

}  // namespace

absl::StatusOr<std::unique_ptr<TopoplaceServer>> TopoplaceServer::Start(
    const ServerConfig& config, const ledger::Clock& clock) {
  TP_RETURN_IF_ERROR(ValidateConfig(config));
  TP_ASSIGN_OR_RETURN(std::shared_ptr<grpc::ServerCredentials> credentials, Credentials(config));
  TP_ASSIGN_OR_RETURN(FabricPtr fabric, LoadFabricSpec(config.fabric));
  TP_ASSIGN_OR_RETURN(Authorizer authorizer,
                      Authorizer::FromConfig(config, [fabric](absl::string_view name) {
                        return fabric->FindHost(name).has_value();
                      }));

  std::unique_ptr<TopoplaceServer> server(new TopoplaceServer());
  TP_ASSIGN_OR_RETURN(server->stores_, OpenDaemonStores(config, clock, std::move(fabric)));
  TP_ASSIGN_OR_RETURN(server->services_,
                      BuildDaemonServices(config, server->stores_, std::move(authorizer)));
  TP_RETURN_IF_ERROR(server->StartGrpc(config, credentials));
  server->stores_.backend.JoinElection(config, server->port_);
  server->UpdateServingStatus();
  server->services_->health->Start();
  if (absl::Status s = server->StartSideServers(config); !s.ok()) {
    server->Shutdown();
    return s;
  }
  server->sweeper_ = std::thread(
      [raw = server.get(), interval = config.reclaim_interval] { raw->SweepExpired(interval); });
  return server;
}

absl::Status TopoplaceServer::StartGrpc(const ServerConfig& config,
                                        std::shared_ptr<grpc::ServerCredentials> credentials) {
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  // With a connection limit, gRPC listens on loopback behind the relay, which owns the
  // configured address (connection_relay.h).
  int grpc_port = 0;
  builder.AddListeningPort(config.max_connections > 0 ? "127.0.0.1:0" : config.listen,
                           std::move(credentials), &grpc_port);
  // gRPC sets SO_REUSEPORT by default: a second daemon on the same port would then start
  // and take every other connection. Without it, the second one fails to bind.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.SetMaxReceiveMessageSize(static_cast<int>(config.max_message_bytes));
  if (config.read_access != "open") builder.SetOption(std::make_unique<WithoutReflection>());
  builder.RegisterService(services_->topology.get());
  builder.RegisterService(services_->placement.get());
  builder.RegisterService(services_->telemetry.get());
  // The malformed-request answer comes first, so the metrics count the code sent.
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(MalformedRequestInterceptor());
  for (auto& factory : RpcMetricsInterceptors(services_->metrics.get())) {
    interceptors.push_back(std::move(factory));
  }
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  server_ = builder.BuildAndStart();
  if (server_ == nullptr || grpc_port == 0) {
    return absl::UnavailableError(absl::StrCat("listen: cannot serve on '", config.listen, "'"));
  }
  port_ = grpc_port;
  probe_target_ = config.max_connections > 0 ? absl::StrCat("127.0.0.1:", grpc_port)
                                             : ProbeTarget(config.listen, grpc_port);
  if (config.max_connections > 0) {
    const int max_total = RelayConnectionBudget(config);
    if (max_total < config.max_connections) {
      std::cerr << "topoplaced: max_connections " << config.max_connections << " lowered to "
                << max_total << " to fit the open-file limit of " << OpenFileLimit()
                << " (three descriptors each); raise LimitNOFILE for more" << std::endl;
    }
    absl::StatusOr<std::unique_ptr<ConnectionRelay>> relay =
        ConnectionRelay::Start(config.listen, grpc_port,
                               {.max_total = max_total,
                                .max_per_peer = config.max_connections_per_peer,
                                .handshake_timeout = config.handshake_timeout});
    if (!relay.ok()) {
      Shutdown();
      return relay.status();
    }
    relay_ = *std::move(relay);
    port_ = relay_->port();
  }
  return absl::OkStatus();
}

absl::Status TopoplaceServer::StartSideServers(const ServerConfig& config) {
  if (!config.metrics_listen.empty()) {
    absl::StatusOr<std::unique_ptr<telemetry::MetricsServer>> metrics =
        telemetry::MetricsServer::Start(config.metrics_listen, *services_->metrics,
                                        MetricsAuth(config, services_->context.authorizer));
    if (!metrics.ok()) return metrics.status();
    metrics_server_ = *std::move(metrics);
  }
  if (!config.console_listen.empty()) {
    health_subscription_ = services_->health->Subscribe(
        [feed = &services_->changes] { feed->Publish(ChangeFeed::kHealth); });
    ConsoleOptions console;
    console.listener.listen = config.console_listen;
    console.listener.tls_cert_file = config.tls_cert_file;
    console.listener.tls_key_file = config.tls_key_file;
    console.listener.tls_client_ca_file = config.tls_client_ca_file;
    console.listener.max_connections = ConsoleConnectionBudget(config);
    console.authenticated_reads = config.read_access == "authenticated";
    absl::StatusOr<std::unique_ptr<ConsoleServer>> started =
        ConsoleServer::Start(console, services_->context, services_->changes);
    if (!started.ok()) {
      return absl::Status(started.status().code(),
                          absl::StrCat("console_listen: ", started.status().message()));
    }
    console_ = *std::move(started);
  }
  return absl::OkStatus();
}

void TopoplaceServer::SweepExpired(absl::Duration interval) {
  while (!stop_.WaitForNotificationWithTimeout(interval)) {
    // A failed sweep is retried on the next tick; reads and writes reclaim lazily too.
    (void)services_->ledger->ReclaimExpired();
    (void)stores_.ledger().ProbeWrites();
    UpdateServingStatus();
    if (stores_.shared_health != nullptr) FollowSharedHealth();
  }
}

void TopoplaceServer::FollowSharedHealth() {
  const bool leading = stores_.ledger().MayWrite().ok();
  // A follower takes the leader's verdicts as the leader persists them; a replica that has
  // just won the election takes them once more, then judges on its own. A failed read is
  // retried on the next sweep and logged when it starts failing.
  if (!leading || !was_leading_) {
    const absl::Status restored = services_->health->Restore();
    if (!restored.ok() && follow_ok_) {
      std::cerr << "topoplaced: cannot read the shared link health: " << restored.message()
                << std::endl;
    }
    follow_ok_ = restored.ok();
  }
  was_leading_ = leading;
}

void TopoplaceServer::UpdateServingStatus() {
  const absl::Status writes = stores_.ledger().WriteState();
  absl::MutexLock lock(&health_mu_);
  if (stopping_) return;
  grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService();
  if (health == nullptr) return;
  // NOT_SERVING while the ledger cannot record changes: placing jobs is the daemon's
  // job. Reads are still answered for callers that ask.
  health->SetServingStatus(writes.ok());
  // Alive, whatever the ledger says: what a liveness probe asks (a follower, or a leader
  // whose disk is full, is NOT_SERVING above and must not be restarted for it).
  health->SetServingStatus(kLivenessService, true);
  if (writes.ok() != writes_ok_) {
    std::cerr << "topoplaced: " << (writes.ok() ? "ledger writable again" : writes.message())
              << std::endl;
    writes_ok_ = writes.ok();
  }
}

void TopoplaceServer::Shutdown() {
  absl::MutexLock lock(&shutdown_mu_);
  if (shut_down_) return;
  shut_down_ = true;
  {
    absl::MutexLock health_lock(&health_mu_);
    stopping_ = true;
    if (grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService()) {
      health->SetServingStatus(false);
    }
  }
  server_->Shutdown(std::chrono::system_clock::now() + absl::ToChronoSeconds(kShutdownGrace));
  if (relay_ != nullptr) relay_->Stop();
  stop_.Notify();
  if (sweeper_.joinable()) sweeper_.join();
  if (health_subscription_ >= 0) services_->health->Unsubscribe(health_subscription_);
  services_->health->Stop();
  metrics_server_.reset();
  // Open event streams end at once, then the console stops.
  services_->changes.Close();
  if (console_ != nullptr) console_->Shutdown();
  // A leader hands over at once instead of holding writes up for its lease.
  if (stores_.backend.election != nullptr) stores_.backend.election->Resign();
}

void TopoplaceServer::Wait() { server_->Wait(); }

TopoplaceServer::~TopoplaceServer() {
  if (server_ != nullptr) Shutdown();
  if (sweeper_.joinable()) {
    stop_.Notify();
    sweeper_.join();
  }
}

}  // namespace topoplace::server
