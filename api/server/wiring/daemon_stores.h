// Everything the daemon keeps, opened in order and owned together, each backend as the
// configuration's `store` says: the lock that keeps one daemon per db_path, the served
// fabric's snapshot, the ledger (SQLite or etcd, with its election), the telemetry store
// (always the SQLite file), and host reports and link health (the SQLite file, or etcd,
// shared by the replicas).
//
//   TP_ASSIGN_OR_RETURN(DaemonStores stores, OpenDaemonStores(config, clock, fabric));
//   stores.ledger().Reserve(...);
//   HealthMonitor monitor(stores.fabric, &stores.health_history(), ...);
//
// Members are destroyed in the reverse order of their declaration: the ledger before the
// election and the etcd client it uses, the lock last.
#ifndef TOPOPLACE_API_SERVER_WIRING_DAEMON_STORES_H_
#define TOPOPLACE_API_SERVER_WIRING_DAEMON_STORES_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "api/server/adapters/ledger_backend.h"
#include "api/server/config/server_config.h"
#include "scheduler/ledger/clock.h"
#include "store/ports/health_history.h"
#include "store/ports/host_report_store.h"
#include "store/sqlite/exclusive_lock.h"
#include "store/sqlite/telemetry_report_store.h"
#include "topology/model/fabric.h"

namespace topoplace::server {

struct DaemonStores {
  std::unique_ptr<store::ExclusiveLock> db_lock;  // one daemon per db_path
  FabricPtr fabric;                               // as stored in the snapshot table
  uint64_t fabric_version = 0;
  LedgerBackend backend;
  std::unique_ptr<store::TelemetryReportStore> telemetry;
  std::unique_ptr<store::HostReportStore> host_reports;
  std::unique_ptr<store::HealthHistory> shared_health;  // etcd only

  store::Ledger& ledger() const { return *backend.ledger; }
  // Where link health is kept: shared through etcd, or the telemetry store.
  store::HealthHistory& health_history() const {
    return shared_health != nullptr ? *shared_health : *telemetry;
  }
};

// Opens them for `config` (already validated), stores `fabric` as a new snapshot if it
// differs from the last. `clock` must outlive the stores. Unavailable when the database
// or etcd cannot be opened or another daemon holds db_path; the ledger's warnings are
// printed to stderr.
absl::StatusOr<DaemonStores> OpenDaemonStores(const ServerConfig& config,
                                              const ledger::Clock& clock, FabricPtr fabric);

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_WIRING_DAEMON_STORES_H_
