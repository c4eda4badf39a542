#include "api/server/wiring/daemon_stores.h"

#include <filesystem>
#include <iostream>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "store/etcd/etcd_health_history.h"
#include "store/etcd/etcd_host_report_store.h"
#include "store/sqlite/fabric_store.h"
#include "store/sqlite/sqlite_host_report_store.h"

namespace topoplace::server {
namespace {

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

absl::StatusOr<DaemonStores> OpenDaemonStores(const ServerConfig& config,
                                              const ledger::Clock& clock, FabricPtr fabric) {
  const store::Durability durability = SqliteDurability(config);
  TP_RETURN_IF_ERROR(MakeParentDirectory(config.db_path));
  DaemonStores stores;
  {
    absl::StatusOr<std::unique_ptr<store::ExclusiveLock>> lock =
        store::ExclusiveLock::Acquire(config.db_path + ".lock");
    if (!lock.ok()) {
      return absl::Status(lock.status().code(), absl::StrCat("db_path: ", lock.status().message()));
    }
    stores.db_lock = *std::move(lock);
  }
  {
    TP_ASSIGN_OR_RETURN(std::unique_ptr<store::FabricStore> snapshots,
                        store::FabricStore::Open(config.db_path, durability));
    TP_ASSIGN_OR_RETURN(store::FabricSnapshot snapshot, snapshots->Put(std::move(fabric)));
    stores.fabric = snapshot.fabric;
    stores.fabric_version = snapshot.version;
  }
  TP_ASSIGN_OR_RETURN(stores.backend, OpenLedgerBackend(config, stores.fabric, clock));
  for (const std::string& w : stores.ledger().warnings()) {
    std::cerr << "topoplaced: warning: " << w << std::endl;
  }
  TP_ASSIGN_OR_RETURN(stores.telemetry,
                      store::TelemetryReportStore::Open(config.db_path, durability));
  if (config.store_is_etcd()) {
    // Replicas share the agents' reports and link health through etcd, as they share the
    // ledger.
    stores.host_reports = std::make_unique<store::EtcdHostReportStore>(
        *stores.backend.etcd, *stores.backend.election, config.etcd_prefix);
    stores.shared_health = std::make_unique<store::EtcdHealthHistory>(
        *stores.backend.etcd, *stores.backend.election, config.etcd_prefix, *stores.telemetry);
  } else {
    TP_ASSIGN_OR_RETURN(stores.host_reports,
                        store::OpenSqliteHostReportStore(config.db_path, durability));
  }
  return stores;
}

}  // namespace topoplace::server
