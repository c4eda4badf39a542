// The daemon in one object: loads the configured fabric, stores it as a versioned
// snapshot, opens the ledger (in the SQLite file or on etcd) and the telemetry store, starts the
// gRPC server (Topology, Placement, Telemetry, grpc.health.v1, reflection) and a sweeper that
// reclaims expired reservations. Used by topoplaced's main() and by in-process tests.
//
//   ServerConfig config;  config.listen = "127.0.0.1:0";
//   TP_ASSIGN_OR_RETURN(auto server, TopoplaceServer::Start(config, RealClock()));
//   int port = server->port();   // the port actually bound
//   server->Shutdown();
//
// Thread-safe: Shutdown may be called from any thread, more than once.
#ifndef TOPOPLACE_API_SERVER_WIRING_TOPOPLACE_SERVER_H_
#define TOPOPLACE_API_SERVER_WIRING_TOPOPLACE_SERVER_H_

#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>

#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "api/server/config/server_config.h"
#include "api/server/console/console_server.h"
#include "api/server/guards/connection_relay.h"
#include "api/server/wiring/daemon_services.h"
#include "api/server/wiring/daemon_stores.h"
#include "scheduler/ledger/clock.h"

namespace topoplace::server {

// The grpc.health.v1 service name that is SERVING while the daemon answers at all, for
// liveness probes (deploy/k8s); "" (the whole server) is SERVING only while the ledger can
// record changes, for readiness.
inline constexpr char kLivenessService[] = "topoplace.v1.Liveness";

class TopoplaceServer {
 public:
  // Validates `config` and starts serving. InvalidArgument for bad configuration,
  // Unavailable if the database cannot be opened or the address cannot be bound.
  // `clock` must outlive the server.
  static absl::StatusOr<std::unique_ptr<TopoplaceServer>> Start(const ServerConfig& config,
                                                                const ledger::Clock& clock);
  ~TopoplaceServer();

  // The bound TCP port (useful with port 0).
  int port() const { return port_; }
  // host:port where gRPC itself answers, for the watchdog's probe: the listen address
  // (a wildcard one as loopback), or with the relay the loopback port behind it.
  const std::string& probe_target() const { return probe_target_; }
  const Fabric& fabric() const { return *stores_.fabric; }
  uint64_t fabric_version() const { return stores_.fabric_version; }
  // The bound /metrics port; 0 when metrics_listen is empty.
  int metrics_port() const { return metrics_server_ ? metrics_server_->port() : 0; }
  // The bound web console port; 0 when console_listen is empty.
  int console_port() const { return console_ ? console_->port() : 0; }
  HealthMonitor& health() { return *services_->health; }
  // Stops accepting calls, cancels calls still running after a short grace period, stops
  // the sweeper. Everything acknowledged is already durable.
  void Shutdown();
  // Blocks until Shutdown has completed.
  void Wait();

 private:
  TopoplaceServer() = default;
  // The phases of Start after the stores (daemon_stores.h) and the services
  // (daemon_services.h), in order. Each leaves what it built in the members; on failure
  // the caller drops the half-built server (StartSideServers' caller shuts it down first).
  // The gRPC server (and the connection relay in front of it); shuts down on a relay failure.
  absl::Status StartGrpc(const ServerConfig& config,
                         std::shared_ptr<grpc::ServerCredentials> credentials);
  // /metrics and the web console, when configured.
  absl::Status StartSideServers(const ServerConfig& config);
  void SweepExpired(absl::Duration interval);
  // With etcd: restores link health from the shared history while this replica follows,
  // and once when it starts leading. Sweeper thread only.
  void FollowSharedHealth();
  // Health: SERVING while the ledger can write, NOT_SERVING (with a log line on each
  // change) while it cannot.
  void UpdateServingStatus();

  DaemonStores stores_;  // destroyed last
  // Its health monitor is stopped in Shutdown, before the stores go.
  std::unique_ptr<DaemonServices> services_;
  int health_subscription_ = -1;
  bool was_leading_ = false;  // sweeper thread only
  bool follow_ok_ = true;     // sweeper thread only
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<telemetry::MetricsServer> metrics_server_;
  std::unique_ptr<ConsoleServer> console_;
  std::unique_ptr<ConnectionRelay> relay_;  // with max_connections only
  int port_ = 0;
  std::string probe_target_;
  absl::Notification stop_;
  std::thread sweeper_;
  absl::Mutex shutdown_mu_;
  bool shut_down_ ABSL_GUARDED_BY(shutdown_mu_) = false;
  // Health status changes; taken inside shutdown_mu_, never the other way round.
  absl::Mutex health_mu_;
  bool stopping_ ABSL_GUARDED_BY(health_mu_) = false;
  bool writes_ok_ ABSL_GUARDED_BY(health_mu_) = true;
};

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_WIRING_TOPOPLACE_SERVER_H_
