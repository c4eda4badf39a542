// The ledger a daemon serves from, as its configuration's `store` says: the SQLite ledger
// in db_path, or the etcd ledger shared by replicas with the leader election that guards
// its writes.
//
//   TP_ASSIGN_OR_RETURN(LedgerBackend backend, OpenLedgerBackend(config, fabric, clock));
//   ... start serving on `port` ...
//   backend.JoinElection(config, port);   // etcd: campaign under the address clients use
#ifndef TOPOPLACE_API_SERVER_ADAPTERS_LEDGER_BACKEND_H_
#define TOPOPLACE_API_SERVER_ADAPTERS_LEDGER_BACKEND_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "api/server/config/server_config.h"
#include "scheduler/ledger/clock.h"
#include "store/etcd/etcd_client.h"
#include "store/etcd/leader_election.h"
#include "store/ports/ledger.h"
#include "store/sqlite/sqlite_db.h"

namespace topoplace::server {

struct LedgerBackend {
  // Declared in the order they are built, so they are destroyed ledger first.
  std::unique_ptr<store::EtcdClient> etcd;          // etcd only
  std::unique_ptr<store::LeaderElection> election;  // etcd only
  std::unique_ptr<store::Ledger> ledger;

  // With etcd, starts campaigning as `advertise` (or the listen host with `port`); a no-op
  // for SQLite.
  void JoinElection(const ServerConfig& config, int port);
};

// How the SQLite files of `config` sync (its `durability`, already validated).
store::Durability SqliteDurability(const ServerConfig& config);

// Opens the configured ledger. InvalidArgument for a malformed etcd:// list or unreadable
// TLS or password files (naming the file); Unavailable when etcd cannot be read.
absl::StatusOr<LedgerBackend> OpenLedgerBackend(const ServerConfig& config, FabricPtr fabric,
                                                const ledger::Clock& clock);

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_ADAPTERS_LEDGER_BACKEND_H_
