#include "api/server/wiring/daemon_services.h"

#include <string>
#include <utility>

#include "api/server/services/placement_service.h"
#include "api/server/services/telemetry_service.h"
#include "api/server/services/topology_service.h"
#include "base/status_macros.h"
#include "scheduler/state/free_capacity.h"

namespace topoplace::server {
namespace {

// What /metrics reads of the ledger on every scrape.
telemetry::LedgerGauges ReadLedgerGauges(store::Ledger& ledger) {
  telemetry::LedgerGauges gauges;
  gauges.allocations = {{"reserved", 0}, {"committed", 0}};
  ledger.ForEachLive([&](const ledger::Allocation& a) {
    ++gauges.allocations[std::string(AllocationStateName(a.state))];
  });
  gauges.writable = ledger.WriteState().ok();
  gauges.leading = ledger.MayWrite().ok();
  gauges.expired_reservations = ledger.expired_reservations();
  if (std::optional<store::Ledger::StoreUsage> usage = ledger.store_usage()) {
    gauges.store_bytes = usage->bytes;
    gauges.store_quota_bytes = usage->quota_bytes;
  }
  return gauges;
}

// The uplink-load sources the configuration names; each stays null when it is off.
void AddLoadSources(const ServerConfig& config, ServiceContext& context) {
  if (!config.uplink_load_file.empty()) {
    context.uplink_load =
        std::make_unique<UplinkLoadSource>(*context.fabric, config.uplink_load_file);
  }
  if (config.uplink_load_from_allocations) {
    context.live_load = std::make_unique<sched::HeldUplinkLoad>(*context.fabric);
  }
  if (config.uplink_load_from_counters) {
    context.measured_load =
        std::make_unique<MeasuredUplinkLoad>(*context.fabric, config.uplink_counter_max_age);
  }
}

}  // namespace

DaemonServices::DaemonServices() = default;
DaemonServices::~DaemonServices() {
  if (health != nullptr) health->Stop();
}

absl::StatusOr<std::unique_ptr<DaemonServices>> BuildDaemonServices(const ServerConfig& config,
                                                                    DaemonStores& stores,
                                                                    Authorizer authorizer) {
  auto services = std::make_unique<DaemonServices>();
  ServiceContext& context = services->context;
  context.fabric = stores.fabric;
  context.fabric_version = stores.fabric_version;
  context.host_reports = stores.host_reports.get();
  context.telemetry = stores.telemetry.get();

  services->metrics = std::make_unique<telemetry::DaemonMetrics>();
  context.engine = std::make_unique<EngineHolder>(
      std::make_shared<const sched::PlacementEngine>(context.fabric));
  context.engine->set_place_observer(
      [m = services->metrics.get()](absl::Duration d, bool ok) { m->ObservePlacement(d, ok); });

  telemetry::HealthMonitorOptions health_options;
  health_options.retention = config.telemetry_retention;
  // Every health change swaps in an engine built with the new link health.
  auto swap_engine = [engines = context.engine.get(),
                      fabric = context.fabric](const sched::FabricHealth& health) {
    engines->Swap(std::make_shared<const sched::PlacementEngine>(fabric, health));
  };
  services->health =
      std::make_unique<HealthMonitor>(context.fabric, &stores.health_history(), swap_engine,
                                      services->metrics.get(), health_options);
  TP_RETURN_IF_ERROR(services->health->Restore());
  context.health = services->health.get();

  services->metrics->SetLedgerSource(
      [ledger = &stores.ledger()] { return ReadLedgerGauges(*ledger); });
  // What is free, in what shape, at every scrape: the ledger's occupancy on the current
  // engine's health (scheduler/state/free_capacity.h).
  services->metrics->SetCapacitySource([ledger = &stores.ledger(), &context] {
    const std::shared_ptr<const sched::PlacementEngine> engine = context.engine->Current();
    return sched::MeasureFreeCapacity(*context.fabric, ledger->Occupancy(), engine->health());
  });
  context.on_refused = [m = services->metrics.get()](const std::string& level) {
    m->CountRefused(level);
  };
  // The console's capacity page lists the latest 64.
  context.refusals = std::make_unique<RefusalLog>(64);
  // Every ledger writer (handlers, sweeper) goes through the observed ledger, so the
  // console's event stream sees each change.
  services->ledger = std::make_unique<ObservedLedger>(
      stores.ledger(), [feed = &services->changes] { feed->Publish(ChangeFeed::kAllocations); });
  context.ledger = services->ledger.get();

  context.authorizer = std::move(authorizer);
  context.default_ttl = config.reservation_ttl;
  context.accept_unknown_hosts = config.accept_unknown_hosts;
  context.user_limits = {.max_priority = config.user_max_priority,
                         .max_reservations = config.user_max_reservations,
                         .max_reserved_gpus = config.user_max_reserved_gpus,
                         .max_ttl = config.user_max_ttl};
  context.host_report_budget = std::make_unique<ReportBudget>(kHostReportBudget);
  context.telemetry_budget = std::make_unique<ReportBudget>(kTelemetryBudget);
  AddLoadSources(config, context);

  services->topology = std::make_unique<TopologyService>(context);
  services->placement = std::make_unique<PlacementService>(context);
  services->telemetry = std::make_unique<TelemetryService>(context);
  return services;
}

}  // namespace topoplace::server
