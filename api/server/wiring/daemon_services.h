// The part of the daemon that answers calls, built over its stores (daemon_stores.h): the
// metrics, the placement engine (swapped for one with the new link health on every
// change), link health restored from its history, the ledger as handlers and the sweeper
// see it (every change published to the console's change feed), the uplink-load sources
// the configuration names, and the three gRPC services over one ServiceContext.
//
//   TP_ASSIGN_OR_RETURN(DaemonStores stores, OpenDaemonStores(config, clock, fabric));
//   TP_ASSIGN_OR_RETURN(auto services, BuildDaemonServices(config, stores, authorizer));
//   builder.RegisterService(services->placement.get());
//   services->health->Start();   // once the daemon serves; Stop() before the services go
//
// Not copyable or movable: the context, the monitor and the observed ledger point into one
// another. `stores` must outlive the services. Members are destroyed in the reverse order
// of their declaration: the services, then the health monitor, before the context they
// read; the change feed last.
#ifndef TOPOPLACE_API_SERVER_WIRING_DAEMON_SERVICES_H_
#define TOPOPLACE_API_SERVER_WIRING_DAEMON_SERVICES_H_

#include <memory>

#include "absl/status/statusor.h"
#include "api/server/adapters/observed_ledger.h"
#include "api/server/config/server_config.h"
#include "api/server/console/change_feed.h"
#include "api/server/guards/authorizer.h"
#include "api/server/services/service_context.h"
#include "api/server/wiring/daemon_stores.h"
#include "telemetry/metrics/daemon_metrics.h"
#include "telemetry/monitor/health_monitor.h"

namespace topoplace::server {

class PlacementService;
class TelemetryService;
class TopologyService;

struct DaemonServices {
  DaemonServices();
  ~DaemonServices();
  DaemonServices(const DaemonServices&) = delete;
  DaemonServices& operator=(const DaemonServices&) = delete;

  ChangeFeed changes;  // ledger and link-health changes, for the console's event stream
  std::unique_ptr<telemetry::DaemonMetrics> metrics;
  std::unique_ptr<ObservedLedger> ledger;  // the stores' ledger, publishing to `changes`
  ServiceContext context;                  // context.ledger is `ledger`
  // Restored, not started; swaps context.engine's engine on every change, so it is
  // stopped (by the destructor at the latest) and destroyed before the context.
  std::unique_ptr<HealthMonitor> health;
  std::unique_ptr<TopologyService> topology;
  std::unique_ptr<PlacementService> placement;
  std::unique_ptr<TelemetryService> telemetry;
};

// Builds them for `config` (already validated) over `stores`. Fails only when link health
// cannot be read back from its history (etcd unreachable, a damaged SQLite file).
absl::StatusOr<std::unique_ptr<DaemonServices>> BuildDaemonServices(const ServerConfig& config,
                                                                    DaemonStores& stores,
                                                                    Authorizer authorizer);

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_WIRING_DAEMON_SERVICES_H_
