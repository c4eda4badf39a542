#include "api/server/topoplace_server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/impl/server_builder_option.h>
#include <grpcpp/impl/server_builder_plugin.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_builder.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "api/server/malformed_request_interceptor.h"
#include "api/server/placement_service.h"
#include "api/server/rpc_metrics_interceptor.h"
#include "api/server/store/etcd_host_report_store.h"
#include "api/server/telemetry_service.h"
#include "api/server/topology_service.h"
#include "topology/base/status_macros.h"
#include "topology/io/fabric_file.h"
#include "topology/store/exclusive_lock.h"
#include "topology/store/fabric_store.h"

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
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(key, ": '", path, "' cannot be read"));
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
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

absl::Status MakeParentDirectory(const std::string& path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return absl::OkStatus();
  std::error_code error;
  std::filesystem::create_directories(parent, error);
  if (error) {
    return absl::UnavailableError(
        absl::StrCat("db_path: cannot create '", parent.string(), "': ", error.message()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<TopoplaceServer>> TopoplaceServer::Start(
    const ServerConfig& config, const ledger::Clock& clock) {
  TP_RETURN_IF_ERROR(ValidateConfig(config));
  const store::Durability durability =
      config.durability == "full" ? store::Durability::kFull : store::Durability::kNormal;
  TP_ASSIGN_OR_RETURN(std::shared_ptr<grpc::ServerCredentials> credentials, Credentials(config));
  TP_ASSIGN_OR_RETURN(FabricPtr fabric, LoadFabricSpec(config.fabric));
  TP_ASSIGN_OR_RETURN(Authorizer authorizer,
                      Authorizer::FromConfig(config, [fabric](absl::string_view name) {
                        return fabric->FindHost(name).has_value();
                      }));
  TP_RETURN_IF_ERROR(MakeParentDirectory(config.db_path));

  std::unique_ptr<TopoplaceServer> server(new TopoplaceServer());
  {
    absl::StatusOr<std::unique_ptr<store::ExclusiveLock>> lock =
        store::ExclusiveLock::Acquire(config.db_path + ".lock");
    if (!lock.ok()) {
      return absl::Status(lock.status().code(), absl::StrCat("db_path: ", lock.status().message()));
    }
    server->db_lock_ = *std::move(lock);
  }
  {
    TP_ASSIGN_OR_RETURN(std::unique_ptr<store::FabricStore> snapshots,
                        store::FabricStore::Open(config.db_path, durability));
    TP_ASSIGN_OR_RETURN(store::FabricSnapshot snapshot, snapshots->Put(fabric));
    server->context_.fabric = snapshot.fabric;
    server->context_.fabric_version = snapshot.version;
  }
  TP_ASSIGN_OR_RETURN(server->backend_, OpenLedgerBackend(config, server->context_.fabric, clock));
  server->ledger_ = server->backend_.ledger.get();
  for (const std::string& w : server->ledger_->warnings()) {
    std::cerr << "topoplaced: warning: " << w << std::endl;
  }
  TP_ASSIGN_OR_RETURN(server->telemetry_, TelemetryReportStore::Open(config.db_path, durability));
  if (server->backend_.election != nullptr) {
    // Replicas share the agents' reports through etcd, as they share the ledger.
    server->context_.host_reports = std::make_unique<EtcdHostReportStore>(
        *server->backend_.etcd, *server->backend_.election, config.etcd_prefix);
  } else {
    TP_ASSIGN_OR_RETURN(server->context_.host_reports,
                        HostReportStore::Open(config.db_path, durability));
  }
  server->metrics_ = std::make_unique<telemetry::DaemonMetrics>();
  server->context_.engine = std::make_unique<EngineHolder>(
      std::make_shared<const sched::PlacementEngine>(server->context_.fabric));
  server->context_.engine->set_place_observer(
      [m = server->metrics_.get()](absl::Duration d, bool ok) { m->ObservePlacement(d, ok); });
  telemetry::HealthMonitorOptions health_options;
  health_options.retention = config.telemetry_retention;
  // Every health change swaps in an engine built with the new link health.
  auto swap_engine = [engines = server->context_.engine.get(),
                      fabric = server->context_.fabric](const sched::FabricHealth& health) {
    engines->Swap(std::make_shared<const sched::PlacementEngine>(fabric, health));
  };
  server->health_ =
      std::make_unique<HealthMonitor>(server->context_.fabric, server->telemetry_.get(),
                                      swap_engine, server->metrics_.get(), health_options);
  TP_RETURN_IF_ERROR(server->health_->Restore());
  server->context_.health = server->health_.get();
  server->metrics_->SetLedgerSource([ledger = server->ledger_] {
    telemetry::LedgerGauges gauges;
    gauges.allocations = {{"reserved", 0}, {"committed", 0}};
    ledger->ForEachLive([&](const ledger::Allocation& a) {
      ++gauges.allocations[std::string(AllocationStateName(a.state))];
    });
    gauges.writable = ledger->WriteState().ok();
    gauges.leading = ledger->MayWrite().ok();
    gauges.expired_reservations = ledger->expired_reservations();
    return gauges;
  });
  // Every ledger writer (handlers, sweeper) goes through the observed ledger, so the
  // console's event stream sees each change.
  server->observed_ledger_ = std::make_unique<ObservedLedger>(
      *server->ledger_, [feed = &server->changes_] { feed->Publish(ChangeFeed::kAllocations); });
  server->context_.ledger = server->observed_ledger_.get();
  server->context_.telemetry = server->telemetry_.get();
  server->context_.authorizer = std::move(authorizer);
  server->context_.default_ttl = config.reservation_ttl;
  server->context_.accept_unknown_hosts = config.accept_unknown_hosts;
  server->context_.host_report_budget = std::make_unique<ReportBudget>(kHostReportBudget);
  server->context_.telemetry_budget = std::make_unique<ReportBudget>(kTelemetryBudget);
  if (!config.uplink_load_file.empty()) {
    server->context_.uplink_load =
        std::make_unique<UplinkLoadSource>(*server->context_.fabric, config.uplink_load_file);
  }
  if (config.uplink_load_from_allocations) {
    server->context_.live_load = std::make_unique<sched::HeldUplinkLoad>(*server->context_.fabric);
  }
  if (config.uplink_load_from_counters) {
    server->context_.measured_load = std::make_unique<MeasuredUplinkLoad>(
        *server->context_.fabric, config.uplink_counter_max_age);
  }
  server->topology_service_ = std::make_unique<TopologyService>(server->context_);
  server->placement_service_ = std::make_unique<PlacementService>(server->context_);
  server->telemetry_service_ = std::make_unique<TelemetryService>(server->context_);

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  // With a connection limit, gRPC listens on loopback behind the relay, which owns the
  // configured address (connection_relay.h).
  int grpc_port = 0;
  builder.AddListeningPort(config.max_connections > 0 ? "127.0.0.1:0" : config.listen, credentials,
                           &grpc_port);
  // gRPC sets SO_REUSEPORT by default: a second daemon on the same port would then start
  // and take every other connection. Without it, the second one fails to bind.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.SetMaxReceiveMessageSize(static_cast<int>(config.max_message_bytes));
  if (config.read_access != "open") builder.SetOption(std::make_unique<WithoutReflection>());
  builder.RegisterService(server->topology_service_.get());
  builder.RegisterService(server->placement_service_.get());
  builder.RegisterService(server->telemetry_service_.get());
  // The malformed-request answer comes first, so the metrics count the code sent.
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(MalformedRequestInterceptor());
  for (auto& factory : RpcMetricsInterceptors(server->metrics_.get())) {
    interceptors.push_back(std::move(factory));
  }
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || grpc_port == 0) {
    return absl::UnavailableError(absl::StrCat("listen: cannot serve on '", config.listen, "'"));
  }
  server->port_ = grpc_port;
  if (config.max_connections > 0) {
    absl::StatusOr<std::unique_ptr<ConnectionRelay>> relay = ConnectionRelay::Start(
        config.listen, grpc_port,
        {.max_total = config.max_connections, .max_per_peer = config.max_connections_per_peer});
    if (!relay.ok()) {
      server->Shutdown();
      return relay.status();
    }
    server->relay_ = *std::move(relay);
    server->port_ = server->relay_->port();
  }
  server->backend_.JoinElection(config, server->port_);
  server->UpdateServingStatus();
  server->health_->Start();
  if (!config.metrics_listen.empty()) {
    absl::StatusOr<std::unique_ptr<telemetry::MetricsServer>> metrics =
        telemetry::MetricsServer::Start(config.metrics_listen, *server->metrics_,
                                        MetricsAuth(config, server->context_.authorizer));
    if (!metrics.ok()) {
      server->Shutdown();
      return metrics.status();
    }
    server->metrics_server_ = *std::move(metrics);
  }
  if (!config.console_listen.empty()) {
    server->health_subscription_ = server->health_->Subscribe(
        [feed = &server->changes_] { feed->Publish(ChangeFeed::kHealth); });
    ConsoleOptions console;
    console.listener.listen = config.console_listen;
    console.listener.tls_cert_file = config.tls_cert_file;
    console.listener.tls_key_file = config.tls_key_file;
    console.listener.tls_client_ca_file = config.tls_client_ca_file;
    console.authenticated_reads = config.read_access == "authenticated";
    absl::StatusOr<std::unique_ptr<ConsoleServer>> started =
        ConsoleServer::Start(console, server->context_, server->changes_);
    if (!started.ok()) {
      server->Shutdown();
      return absl::Status(started.status().code(),
                          absl::StrCat("console_listen: ", started.status().message()));
    }
    server->console_ = *std::move(started);
  }
  server->sweeper_ = std::thread(
      [raw = server.get(), interval = config.reclaim_interval] { raw->SweepExpired(interval); });
  return server;
}

void TopoplaceServer::SweepExpired(absl::Duration interval) {
  while (!stop_.WaitForNotificationWithTimeout(interval)) {
    // A failed sweep is retried on the next tick; reads and writes reclaim lazily too.
    (void)context_.ledger->ReclaimExpired();
    (void)ledger_->ProbeWrites();
    UpdateServingStatus();
  }
}

void TopoplaceServer::UpdateServingStatus() {
  const absl::Status writes = ledger_->WriteState();
  absl::MutexLock lock(&health_mu_);
  if (stopping_) return;
  grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService();
  if (health == nullptr) return;
  // NOT_SERVING while the ledger cannot record changes: placing jobs is the daemon's
  // job. Reads are still answered for callers that ask.
  health->SetServingStatus(writes.ok());
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
  if (health_ != nullptr) {
    if (health_subscription_ >= 0) health_->Unsubscribe(health_subscription_);
    health_->Stop();
  }
  metrics_server_.reset();
  // Open event streams end at once, then the console stops.
  changes_.Close();
  if (console_ != nullptr) console_->Shutdown();
  // A leader hands over at once instead of holding writes up for its lease.
  if (backend_.election != nullptr) backend_.election->Resign();
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
