// The ledger on a local SQLite file (the embedded default; ledger.h says what a ledger
// promises). Every change
// (reserve, commit, release, expiry) is one SQLite transaction that also appends an event;
// memory is updated only after the transaction committed, so a failed write changes
// nothing. On open, the live allocations are read back and free capacity is rebuilt from
// them; reservations that expired while the daemon was down are reclaimed.
//
//   TP_ASSIGN_OR_RETURN(auto ledger, SqliteLedger::Open(path, fabric, RealClock()));
//   TP_ASSIGN_OR_RETURN(Allocation a, ledger->Reserve({.gpus = ..., .ttl = absl::Seconds(60)}));
//   TP_ASSIGN_OR_RETURN(a, ledger->Commit(a.id, "slurm:4242"));
//   TP_RETURN_IF_ERROR(ledger->Release(a.id).status());
//
// No GPU is ever held by two live allocations: Reserve checks and records under one lock,
// and the SQLite table of held GPUs has a UNIQUE key on (host, gpu) as a second guard.
// Thread-safe: every method may be called concurrently.
#ifndef TOPOPLACE_STORE_SQLITE_SQLITE_LEDGER_H_
#define TOPOPLACE_STORE_SQLITE_SQLITE_LEDGER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "scheduler/ledger/ack_watermark.h"
#include "scheduler/ledger/allocation.h"
#include "scheduler/ledger/clock.h"
#include "scheduler/ledger/live_allocations.h"
#include "scheduler/state/occupancy.h"
#include "store/ports/ledger.h"
#include "store/sqlite/sqlite_db.h"
#include "topology/model/fabric.h"

namespace topoplace::store {

struct LedgerOptions {
  store::Durability durability = store::Durability::kFull;
  // Start even when the database is older than what the ledger acknowledged (see
  // ack_watermark.h): the operator accepts that those changes are lost. Allocation
  // numbers and events continue above the acknowledged ones, so no id is handed out twice.
  bool accept_loss = false;
};

class SqliteLedger final : public store::Ledger {
 public:
  // Opens (creating or migrating) the ledger tables in the database at `path` and rebuilds
  // the live allocations. GPUs of hosts that `fabric` no longer has are dropped from the
  // in-memory view with a warning (the rows stay). `clock` must outlive the ledger.
  // The ledger refuses to start (FailedPrecondition naming the database, its watermark
  // file and the override) when the database holds fewer acknowledged changes than
  // `<path>.ledger-watermark` records: a truncated file, a lost -wal, an old backup.
  // A read-only database opens, serves reads, and reports why in WriteState().
  static absl::StatusOr<std::unique_ptr<SqliteLedger>> Open(const std::string& path,
                                                            FabricPtr fabric,
                                                            const ledger::Clock& clock,
                                                            LedgerOptions options = {});

  absl::StatusOr<ledger::Allocation> Reserve(const store::ReserveRequest& request) override;
  absl::StatusOr<ledger::Allocation> FindByRequestId(const std::string& request_id) override;
  absl::StatusOr<ledger::Allocation> Renew(const std::string& id, absl::Duration ttl) override;
  absl::StatusOr<ledger::Allocation> Commit(const std::string& id,
                                            const std::string& external_id) override;
  absl::StatusOr<ledger::Allocation> Release(const std::string& id) override;
  absl::StatusOr<ledger::Allocation> Get(const std::string& id) override;
  absl::StatusOr<ledger::Allocation> GetByExternalId(const std::string& external_id) override;
  void ForEachLive(absl::FunctionRef<void(const ledger::Allocation&)> fn) override;
  absl::StatusOr<int> ReclaimExpired() override;
  sched::Occupancy Occupancy() override;
  int64_t held_gpus() override;
  const Fabric& fabric() const override { return *fabric_; }
  const std::vector<std::string>& warnings() const override { return warnings_; }
  // Unavailable naming the database while it is read-only, full or failing.
  absl::Status WriteState() override;
  // When writes have been failing, tries a small write and seals the watermark; when both
  // work WriteState() is OK again. Cheap no-op while writes work.
  absl::Status ProbeWrites() override;

 private:
  SqliteLedger(std::unique_ptr<store::SqliteDb> db, FabricPtr fabric, const ledger::Clock& clock);
  absl::Status Rebuild() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<int> ReclaimExpiredLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Within a WriteChange: marks allocation `n` finished as of `now` and frees its GPUs'
  // rows (the in-memory view is the caller's).
  absl::Status FinishRowsLocked(int64_t n, ledger::AllocationState state, absl::Time now,
                                absl::string_view event_detail) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Moves live allocation `n` to a finished state in SQLite and then in memory; returns
  // its final record.
  absl::StatusOr<ledger::Allocation> Finish(int64_t n, ledger::AllocationState state,
                                            absl::string_view event_detail)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<ledger::Allocation> LoadFinished(int64_t n) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Allocation `n` if it is live (after reclaiming expired ones); FailedPrecondition naming
  // its final state if it finished, NotFound if it never existed.
  absl::StatusOr<const ledger::Allocation*> LiveLocked(int64_t n)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The held-GPU rows of allocation `n`, inside the caller's transaction.
  absl::Status InsertHeldGpus(int64_t n, const std::vector<ledger::GpuRef>& gpus)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status AppendEvent(int64_t n, absl::string_view kind, absl::string_view detail)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The allocation number reserved with `request_id`, if any.
  absl::StatusOr<std::optional<int64_t>> FindRequestIdLocked(const std::string& request_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::optional<GpuId> ResolveGpu(const ledger::GpuRef& ref) const;
  // Checks the database against the watermark file and opens it for writing (Open).
  absl::Status SealOrRefuse(const std::string& path, const LedgerOptions& options)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The write methods without sealing; the public ones seal, then answer.
  absl::StatusOr<ledger::Allocation> ReserveUnsealed(const store::ReserveRequest& request)
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<ledger::Allocation> CommitUnsealed(const std::string& id,
                                                    const std::string& external_id)
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<ledger::Allocation> ReleaseUnsealed(const std::string& id)
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<ledger::Allocation> RenewUnsealed(const std::string& id, absl::Duration ttl)
      ABSL_LOCKS_EXCLUDED(mu_);
  // `result` once every change published so far is in the watermark (Seal).
  absl::StatusOr<ledger::Allocation> Acknowledged(absl::StatusOr<ledger::Allocation> result)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Writes the latest published watermark unless a write in flight or done already covers
  // it: concurrent callers share one write and flush (group commit). Called without mu_,
  // so the flush overlaps the next transactions.
  absl::Status Seal() ABSL_LOCKS_EXCLUDED(mu_, seal_mu_);
  // Runs `body` as one transaction, then publishes what it acknowledged for Seal().
  // A failure for lack of a writable database is remembered for WriteState().
  absl::Status WriteChange(const std::function<absl::Status()>& body)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Reclaims expired reservations on a read path: a failure to write is remembered, not
  // returned, so reads work on a full disk.
  void ReclaimForRead() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  std::unique_ptr<store::SqliteDb> db_ ABSL_GUARDED_BY(mu_);
  const FabricPtr fabric_;
  const ledger::Clock& clock_;
  ledger::LiveAllocations live_ ABSL_GUARDED_BY(mu_);
  // Written only by the one caller that holds `sealing_` (and at Open).
  std::unique_ptr<ledger::WatermarkFile> watermark_;
  ledger::Watermark mark_ ABSL_GUARDED_BY(mu_);
  // Lock order: mu_ before seal_mu_.
  absl::Mutex seal_mu_ ABSL_ACQUIRED_AFTER(mu_);
  ledger::Watermark published_ ABSL_GUARDED_BY(seal_mu_);  // committed, to be sealed
  int64_t sealed_seq_ ABSL_GUARDED_BY(seal_mu_) = 0;
  bool sealing_ ABSL_GUARDED_BY(seal_mu_) = false;
  int64_t last_event_seq_ ABSL_GUARDED_BY(mu_) = 0;  // of the transaction being written
  absl::Status write_state_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> warnings_;
};

}  // namespace topoplace::store

#endif  // TOPOPLACE_STORE_SQLITE_SQLITE_LEDGER_H_
