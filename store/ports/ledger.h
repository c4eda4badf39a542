// What the daemon asks of an allocation ledger, whatever it stores to: the single source of
// truth for which GPUs are taken. Two backends implement it: SqliteLedger (a local
// SQLite file, the embedded default; store/sqlite) and EtcdLedger (an etcd cluster shared
// by replicas; store/etcd). Both pass the same specification (tests/testing/ledger_contract.h).
//
// Every change is durable before it is answered and all-or-nothing: a failed write changes
// nothing. No GPU is ever held by two live allocations. Thread-safe: every method may be
// called concurrently.
#ifndef TOPOPLACE_STORE_PORTS_LEDGER_H_
#define TOPOPLACE_STORE_PORTS_LEDGER_H_

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "scheduler/ledger/allocation.h"
#include "scheduler/state/occupancy.h"
#include "topology/model/fabric.h"

namespace topoplace::store {

// Upper bound on a reservation's time to live; longer holds must be commits.
inline constexpr absl::Duration kMaxReservationTtl = absl::Hours(24);

struct ReserveRequest {
  std::vector<GpuId> gpus;  // GPUs of the ledger's fabric; non-empty, no duplicates
  std::string job_spec;
  std::string policy;
  uint64_t fabric_version = 0;
  std::string plan_json;
  std::vector<ledger::UplinkOffer> uplink_offer;  // kept with the allocation as given
  absl::Duration ttl = absl::Seconds(60);         // in (0, kMaxReservationTtl]
  // Optional idempotency key chosen by the client; unique over the ledger's whole history.
  std::string request_id;
  // Live allocations this same change releases ("alloc-<n>"), whose GPUs count as free
  // for `gpus`: a preemption's victims, so their GPUs are never free without being held
  // again, and stay theirs when the Reserve fails (hardening round four, finding 2). One
  // that is no longer live is passed over.
  std::vector<std::string> releasing = {};
  // The job's expected run (>= 0; 0: unknown), kept as the allocation's expected_end.
  absl::Duration expected_run = absl::ZeroDuration();
};

class Ledger {
 public:
  virtual ~Ledger() = default;

  // Holds `request.gpus` until now + ttl, releasing `request.releasing` in the same
  // change (all of it or, on any error, none). InvalidArgument for a bad ttl, an empty,
  // duplicated or unknown GPU list or a malformed releasing id; Aborted (retry with a
  // fresh placement) if any GPU is already held by an allocation not being released,
  // naming the GPU and its holder.
  // AlreadyExists if `request.request_id` was used before (see FindByRequestId).
  // Unavailable when the store cannot record the change (naming why).
  virtual absl::StatusOr<ledger::Allocation> Reserve(const ReserveRequest& request) = 0;
  // The allocation, live or finished, that was reserved with `request_id`; NotFound if none.
  virtual absl::StatusOr<ledger::Allocation> FindByRequestId(const std::string& request_id) = 0;
  // Moves a live reservation's expiry to now + ttl (ttl in (0, kMaxReservationTtl]), so a
  // caller that needs longer before Commit keeps its GPUs. NotFound for an unknown id;
  // FailedPrecondition if the allocation is committed (commits never expire) or finished.
  virtual absl::StatusOr<ledger::Allocation> Renew(const std::string& id, absl::Duration ttl) = 0;
  // Binds a reservation to `external_id` and makes it permanent until released.
  // Idempotent for the same external id. NotFound for an unknown id; FailedPrecondition if
  // the reservation expired, was released, or is committed to another external id;
  // InvalidArgument for an empty external id; AlreadyExists if another live allocation is
  // committed to that external id.
  virtual absl::StatusOr<ledger::Allocation> Commit(const std::string& id,
                                                    const std::string& external_id) = 0;
  // Frees the GPUs of a reserved or committed allocation. Releasing a finished allocation
  // returns it unchanged (idempotent). NotFound for an unknown id.
  virtual absl::StatusOr<ledger::Allocation> Release(const std::string& id) = 0;
  // Any allocation, live or finished. NotFound for an unknown id.
  virtual absl::StatusOr<ledger::Allocation> Get(const std::string& id) = 0;
  // The allocation committed to `external_id`, if live. NotFound otherwise.
  virtual absl::StatusOr<ledger::Allocation> GetByExternalId(const std::string& external_id) = 0;
  // Live allocations (reserved or committed), by id. Expired ones are reclaimed first.
  virtual absl::StatusOr<std::vector<ledger::Allocation>> ListLive();
  // Calls `fn` for each allocation ListLive would return, under the ledger's lock, copying
  // nothing (plans can be large). `fn` must not call the ledger.
  virtual void ForEachLive(absl::FunctionRef<void(const ledger::Allocation&)> fn) = 0;

  // Marks reservations past their expiry as expired and frees their GPUs. Returns how many.
  virtual absl::StatusOr<int> ReclaimExpired() = 0;

  // The busy GPUs as the placement engine wants them (reserved + committed).
  virtual sched::Occupancy Occupancy() = 0;
  // Number of GPUs held now.
  virtual int64_t held_gpus() = 0;

  virtual const Fabric& fabric() const = 0;
  // Problems found while rebuilding (e.g. hosts missing from the fabric).
  virtual const std::vector<std::string>& warnings() const = 0;

  // OK while this process can record changes; otherwise why not, as Unavailable (a
  // read-only file, a full disk, an unreachable store, another replica leading). Reads
  // keep working either way.
  virtual absl::Status WriteState() = 0;
  // When writes have been failing, tries whether they work again; returns WriteState().
  virtual absl::Status ProbeWrites() = 0;
  // Cheap, without I/O: Unavailable (naming the leader) when this process may not write
  // at all, being one replica of several that does not lead; OK otherwise. Lets a caller
  // refuse a write before it does work for it.
  virtual absl::Status MayWrite() { return absl::OkStatus(); }

  // How full a store with a space quota is (etcd refuses every write past its quota);
  // nullopt for a store without one (SQLite: its disk) or before it was first read.
  // Without I/O: the figure ProbeWrites last read.
  struct StoreUsage {
    int64_t bytes = 0;        // the store's database file
    int64_t quota_bytes = 0;  // where the store stops taking writes
  };
  virtual std::optional<StoreUsage> store_usage() { return std::nullopt; }

  // Reservations this process marked expired (not committed in time) since it started:
  // jobs whose scheduler reserved and never came back, which an operator wants to see.
  int64_t expired_reservations() const { return expired_.load(std::memory_order_relaxed); }

 protected:
  // For the backends: `n` more reservations were marked expired.
  void CountExpired(int n) { expired_.fetch_add(n, std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> expired_{0};
};

}  // namespace topoplace::store

#endif  // TOPOPLACE_STORE_PORTS_LEDGER_H_
