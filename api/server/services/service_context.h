// What the three gRPC services share: the served fabric snapshot, the placement engine on
// it, the ledger, the telemetry report store, the authorizer and defaults. Built once by
// BuildDaemonServices (daemon_services.h) before the services start; the pointers outlive
// the services.
// Thread-safe: every member is immutable or thread-safe itself.
#ifndef TOPOPLACE_API_SERVER_SERVICES_SERVICE_CONTEXT_H_
#define TOPOPLACE_API_SERVER_SERVICES_SERVICE_CONTEXT_H_

#include <grpcpp/server_context.h>
#include <grpcpp/support/server_callback.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "api/server/adapters/engine_holder.h"
#include "api/server/adapters/measured_uplink_load.h"
#include "api/server/adapters/refusal_log.h"
#include "api/server/adapters/uplink_load_source.h"
#include "api/server/guards/authorizer.h"
#include "api/server/guards/report_budget.h"
#include "api/server/guards/user_limits.h"
#include "client/rpc_status.h"
#include "scheduler/load/held_uplink_load.h"
#include "scheduler/placement/engine.h"
#include "store/ports/host_report_store.h"
#include "store/ports/ledger.h"
#include "store/ports/telemetry_reports.h"
#include "topology/model/fabric.h"

namespace topoplace::telemetry {
class HealthMonitor;
}  // namespace topoplace::telemetry

namespace topoplace::server {

// The link-health loop lives with telemetry (telemetry/monitor/health_monitor.h).
using telemetry::HealthMonitor;

struct ServiceContext {
  FabricPtr fabric;
  uint64_t fabric_version = 0;  // snapshot version in the store
  // The current engine; telemetry swaps in one built with new link health
  // (api/server/adapters/engine_holder.h). `engine->Place(...)` places on the current one.
  std::unique_ptr<EngineHolder> engine;
  store::Ledger* ledger = nullptr;
  store::TelemetryReports* telemetry = nullptr;
  store::HostReportStore* host_reports = nullptr;  // agents' latest host reports
  HealthMonitor* health = nullptr;  // link health (telemetry/monitor/health_monitor.h)
  Authorizer authorizer;
  absl::Duration default_ttl;
  bool accept_unknown_hosts = false;  // ServerConfig::accept_unknown_hosts
  UserLimits user_limits;             // what a Slurm user may hold (user_limits.h)
  // What each host may report (report_budget.h): host reports, and probe results and port
  // counters, per reporting host. Null: unlimited (tests of other things).
  std::unique_ptr<ReportBudget> host_report_budget;
  std::unique_ptr<ReportBudget> telemetry_budget;
  // Uplink load for placement (ServerConfig::uplink_load_file); null: none configured.
  std::unique_ptr<UplinkLoadSource> uplink_load;
  // Uplink load of the live allocations' plans (ServerConfig::uplink_load_from_allocations);
  // null: off.
  std::unique_ptr<sched::HeldUplinkLoad> live_load;
  // Uplink load measured by switch port counters (ServerConfig::uplink_load_from_counters);
  // null: off.
  std::unique_ptr<MeasuredUplinkLoad> measured_load;
  // Told of every Place or Reserve refused for want of room, with the level the job was
  // bound to (the daemon's topoplace_refused_requests_total); null: nobody counts.
  std::function<void(const std::string& level)> on_refused;
  // The latest of those refusals, for the console's capacity page; null: not kept.
  std::unique_ptr<RefusalLog> refusals;
};

// Finishes a unary call with `status` on the context's default reactor.
inline grpc::ServerUnaryReactor* FinishUnary(grpc::CallbackServerContext* context,
                                             const absl::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(client::ToGrpcStatus(status));
  return reactor;
}

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_SERVICES_SERVICE_CONTEXT_H_
