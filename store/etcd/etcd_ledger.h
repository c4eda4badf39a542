// The allocation ledger on etcd, shared by topoplaced replicas (ledger.h says what a
// ledger promises). The leader keeps the live allocations in memory, as the SQLite ledger
// does; every change is one etcd transaction that carries the leader's fence (see
// write_fence.h) and compares the revision of every key it builds on, so two replicas can
// never hold the same GPU even if both believe they lead. Followers serve reads from a view
// that a watch on the live records keeps current after one load (a change shows within
// milliseconds); while the watch is down (etcd unreachable, history compacted) they reload
// the view when it is older than `follower_refresh`. Their writes fail with Unavailable
// naming the leader.
//
// Which GPUs are free is decided in the leader's view, and the view is complete: it is
// loaded after the leadership began, under the fence, and every later change goes through
// it. A stale leader's writes fail on the fence, so its view never matters. Each change
// is therefore a handful of keys whatever the job's size (at most 4 compares and 3
// operations, inside etcd's default --max-txn-ops of 128), and a record is checked
// against etcd's request size limit before it is written. (Until hardening finding 7 each
// GPU had its own key, and a job of 128 GPUs failed on etcd's defaults.) A load still
// refuses a store in which two live allocations name one GPU.
//
// Keys, under `<prefix>ledger/`:
//   live/<n, 20 digits>   the record of a live allocation (topoplace.ledger.v1 proto),
//                         with the GPUs it holds
//   done/<n, 20 digits>   the final record of a released or expired one
//   request/<request_id>  n, for every Reserve made with an idempotency key
//   external/<id>         n, while an allocation is committed to that external id
//   identity              the ledger's id (32 hex digits), created by the first replica
//   floor                 after an accepted loss: the highest number handed out before
//                         it; every replica numbers above it
//
// Knowing its store: etcd wiped, or restored from an older snapshot, at the same address
// would otherwise look like an empty ledger, and the lost allocations' GPUs and ids would
// be handed out again. Each replica remembers etcd's cluster id, the ledger's identity,
// the highest etcd revision it has seen (a floor: etcd's revision never goes back) and the
// highest allocation number it acknowledged, in memory and in a local watermark file
// (ack_watermark.h). Every load of the view checks etcd against them; on a mismatch the
// replica refuses every write, for good, naming what differs and the override
// (accept_ledger_loss at the next start). A replica with no watermark file of its own that
// meets an already wiped etcd cannot tell; the others refuse.
//
// Thread-safe. Changes to different allocations run concurrently: those that arrive while
// an earlier one is with etcd go to etcd together, as one transaction (group_commit.h);
// changes to the same allocation run one after the other.
#ifndef TOPOPLACE_STORE_ETCD_ETCD_LEDGER_H_
#define TOPOPLACE_STORE_ETCD_ETCD_LEDGER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "scheduler/ledger/ack_watermark.h"
#include "scheduler/ledger/clock.h"
#include "scheduler/ledger/live_allocations.h"
#include "store/etcd/etcd_client.h"
#include "store/etcd/group_commit.h"
#include "store/etcd/write_fence.h"
#include "store/ports/ledger.h"

namespace topoplace::store {

struct EtcdLedgerOptions {
  std::string prefix = "/topoplace/";  // the ledger's keys start with <prefix>ledger/
  // How old a follower's view of the live allocations may be before a read reloads it.
  absl::Duration follower_refresh = absl::Milliseconds(200);
  // This replica's record of what it saw and acknowledged (see above); empty: kept in
  // memory only. Written without a disk flush: it guards against etcd losing data, not
  // against this machine losing power.
  // {} and not nothing: designated initializers that leave it out would trip g++'s
  // -Wmissing-field-initializers.
  std::string watermark_path{};
  // Open on an etcd that fails the checks anyway: the identity and floor become etcd's,
  // numbering continues above the acknowledged allocations, and warnings() says so.
  bool accept_loss = false;
  // etcd keeps every revision until compacted, so with nothing compacting it its 2 GiB
  // default quota filled after roughly 250k jobs and etcd refused every write (hardening
  // finding 3). The leader compacts away the history older than keep_revisions each time
  // compact_every more revisions have been written (ProbeWrites: the daemon's sweeper, once
  // per reclaim interval). Compaction frees space inside etcd's file for reuse; shrinking
  // the file is `etcdctl defrag`, an operator's choice.
  int64_t compact_every = 10'000;
  int64_t keep_revisions = 1'000;
  // And at least this often whatever the count, so large writes (host reports of up to
  // 1 MiB, within each host's budget: api/server/guards/report_budget.h) cannot outgrow the quota
  // between two counts: one host adds at most about 5.3 MiB of history in 5 minutes.
  absl::Duration compact_interval = absl::Minutes(5);
  // The largest request etcd takes: etcd's --max-request-bytes, 1.5 MiB by default
  // (etcd 3.4 `embed.DefaultMaxRequestBytes`). A change that would not fit is refused
  // before anything is written.
  size_t max_request_bytes = 1'572'864;
  // Finished records (done/ keys, 9-15 KB each with their plans) and the idempotency keys
  // of their Reserves are live keys, so compaction cannot free them: kept for ever they
  // filled a 100 MiB quota after 6,801 reserve+release cycles and every write failed
  // (hardening round four, finding 3). The leader deletes, oldest number first, those
  // beyond the newest keep_finished and those finished more than finished_max_age ago
  // (ProbeWrites; the newest one always stays, as it numbers the next allocation).
  // After that Get of such an allocation is NotFound, as for a number never used.
  // 5,000 records of 15 KB are 75 MB, 3.5 % of etcd's default 2 GiB quota.
  int64_t keep_finished = 5'000;
  absl::Duration finished_max_age = absl::Hours(24 * 7);
  // etcd's --quota-backend-bytes (its default: 2 GiB), reported beside etcd's database
  // size (store_usage, the topoplace_store_bytes metric) so an alert fires before NOSPACE.
  int64_t quota_bytes = int64_t{2} << 30;
};

class EtcdLedger final : public store::Ledger {
 public:
  // Reads the live allocations from etcd. `etcd`, `fence` and `clock` must outlive the
  // ledger. Unavailable naming the endpoints when etcd cannot be read; DataLoss naming the
  // key for a record that does not parse.
  static absl::StatusOr<std::unique_ptr<EtcdLedger>> Open(EtcdClient& etcd, FenceSource& fence,
                                                          FabricPtr fabric,
                                                          const ledger::Clock& clock,
                                                          EtcdLedgerOptions options = {});
  ~EtcdLedger() override;

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
  // OK while this replica leads and etcd took its last change; Unavailable naming the
  // leader, or the etcd failure, otherwise.
  absl::Status WriteState() override;
  absl::Status ProbeWrites() override;
  absl::Status MayWrite() override { return fence_.WriteFence().status(); }
  std::optional<StoreUsage> store_usage() override;

 private:
  EtcdLedger(EtcdClient& etcd, FenceSource& fence, FabricPtr fabric, const ledger::Clock& clock,
             EtcdLedgerOptions options);
  std::string Key(absl::string_view kind, absl::string_view name) const;
  std::string LiveKey(int64_t n) const;
  std::string DoneKey(int64_t n) const;
  // ResourceExhausted naming the limit when `txn` (with the fence FencedTxn adds) is
  // larger than etcd takes.
  absl::Status Fits(const etcdserverpb::TxnRequest& txn, absl::string_view id) const;

  // Replaces the view with what etcd holds now. Waits for changes in flight first.
  // FailedPrecondition (kept in loss_) when etcd is not the store this ledger knew.
  absl::Status LoadLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Checks etcd's answer to a load against mark_ (see the header comment); on success
  // raises mark_ and records it. `last` is the highest allocation number in etcd.
  absl::Status CheckStoreLocked(const etcdserverpb::ResponseHeader& header,
                                const std::optional<std::string>& identity, int64_t last)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The ledger's identity in etcd: `found`, or a new one created if etcd has none.
  absl::StatusOr<std::string> EnsureIdentityLocked(const std::optional<std::string>& found)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // After an accepted loss: records mark_.allocation as the numbering floor in etcd.
  absl::Status WriteFloorLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Writes mark_ to the watermark file, if there is one. A failure refuses writes.
  absl::Status RecordMarkLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The fence for a write, with a view that is complete under it (reloaded after an
  // election or a failed write).
  absl::StatusOr<Fence> PrepareWriteLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The GPUs `a` holds, checked against `live` (DataLoss naming both holders of a GPU);
  // GPUs the fabric lacks are left out (and warned about when `warn`).
  absl::StatusOr<std::vector<GpuId>> HeldGpus(const ledger::Allocation& a,
                                              const ledger::LiveAllocations& live, bool warn);
  // The follower's watch: (re)opened from the view's revision by the watcher thread;
  // stopped while this replica leads (its own writes keep its view current).
  void StartWatchLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void StopWatchLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void WatchLoop() ABSL_LOCKS_EXCLUDED(mu_);
  // Applies a batch of changes to live/ keys to a follower's view; a record that does not
  // decode or fit marks the view stale (reloaded by the next read).
  void ApplyWatchedLocked(const etcdserverpb::WatchResponse& batch)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Deletes the per-GPU keys of ledgers written by earlier versions, under `fence`.
  void DropLegacyGpuKeysLocked(const Fence& fence) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Reloads a follower's view when it is older than follower_refresh; a leader's view is
  // always current. A failure keeps the old view and is remembered in write_state_.
  void RefreshForReadLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs `txn` with the fence compare added, outside mu_. The response says whether etcd
  // applied it; a failed compare other than the fence's leaves its failure reads in place.
  // Unavailable when the fence no longer holds or etcd did not answer (then the view is
  // reloaded before the next write).
  absl::StatusOr<etcdserverpb::TxnResponse> Write(const Fence& fence,
                                                  const etcdserverpb::TxnRequest& txn)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Waits until no change of allocation `n` is in flight.
  void AwaitIdleLocked(int64_t n) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Reserve's change: allocation `n` (`a`) made live, its request id bound, each of the
  // live `releasing` finished as released (with its plan when `victims_keep_plans`), on
  // the condition that none of them changed since this replica read it.
  etcdserverpb::TxnRequest ReserveTxnLocked(int64_t n, const ledger::Allocation& a,
                                            const store::ReserveRequest& request,
                                            const std::vector<int64_t>& releasing,
                                            bool victims_keep_plans)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Live allocation `n` after reclaiming expired ones; FailedPrecondition naming its final
  // state if it finished, NotFound if it never existed.
  absl::StatusOr<const ledger::Allocation*> LiveLocked(const Fence& fence, int64_t n)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Moves live allocation `n` to finished `state` in etcd, then in the view.
  absl::StatusOr<ledger::Allocation> FinishLocked(const Fence& fence, int64_t n,
                                                  ledger::AllocationState state)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Replaces live allocation `n`'s record (commit, renewal) in etcd, then in the view.
  absl::StatusOr<ledger::Allocation> UpdateLocked(const Fence& fence, int64_t n,
                                                  ledger::Allocation next,
                                                  const std::string& new_external)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<int> ReclaimExpiredLocked(const Fence& fence) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // As leader, compacts etcd's history to keep_revisions when compact_every revisions
  // (anyone's) have passed or compact_interval since the last compaction.
  void CompactHistoryIfDue() ABSL_LOCKS_EXCLUDED(mu_);
  // As leader, deletes the finished records (and their request/ keys) that keep_finished
  // and finished_max_age leave out, in transactions of at most kPruneBatch records.
  void PruneFinished() ABSL_LOCKS_EXCLUDED(mu_);
  // Reads etcd's database size for store_usage().
  void SampleStoreUsage() ABSL_LOCKS_EXCLUDED(mu_);
  // A finished allocation (or one a follower's view does not have yet) read from etcd.
  absl::StatusOr<ledger::Allocation> ReadStoredLocked(int64_t n) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::optional<GpuId> ResolveGpu(const ledger::GpuRef& ref) const;

  EtcdClient& etcd_;
  FenceSource& fence_;
  const FabricPtr fabric_;
  const ledger::Clock& clock_;
  const EtcdLedgerOptions options_;
  GroupCommit group_;  // every change's transaction goes through it
  absl::Mutex mu_;
  ledger::LiveAllocations live_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<int64_t, int64_t> mod_revision_ ABSL_GUARDED_BY(mu_);  // of live/<n>
  absl::flat_hash_set<int64_t> in_flight_ ABSL_GUARDED_BY(mu_);    // allocations being changed
  absl::flat_hash_set<int64_t> unconfirmed_ ABSL_GUARDED_BY(mu_);  // reservations not yet in etcd
  int64_t next_n_ ABSL_GUARDED_BY(mu_) = 1;
  // The fence the view was loaded under (empty: as a follower; revision -1: at Open). A
  // new leadership, even one with the same revision after etcd was wiped, reloads.
  Fence loaded_under_ ABSL_GUARDED_BY(mu_) = {"", -1, 0};
  bool stale_ ABSL_GUARDED_BY(mu_) = true;
  absl::Time loaded_at_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  absl::Status write_state_ ABSL_GUARDED_BY(mu_);
  // What this replica saw and acknowledged: ledger_id (empty until known), epoch, the
  // revision floor (event_seq), the highest allocation number, etcd's cluster id (store).
  ledger::Watermark mark_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<ledger::WatermarkFile> watermark_ ABSL_GUARDED_BY(mu_);
  // Set for good once etcd failed the store checks; every write answers it.
  absl::Status loss_ ABSL_GUARDED_BY(mu_);
  bool opening_ ABSL_GUARDED_BY(mu_) = true;  // accept_loss applies to Open's load only
  std::optional<StoreUsage> usage_ ABSL_GUARDED_BY(mu_);
  int64_t compacted_ ABSL_GUARDED_BY(mu_) = 0;  // the revision this replica compacted to
  absl::Time compacted_at_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  std::vector<std::string> warnings_;
  // The etcd revision the view reflects (its load's, then each watched change's).
  int64_t view_revision_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t loaded_revision_ ABSL_GUARDED_BY(mu_) = 0;    // the last load's: watched events after it
  int64_t watch_from_ ABSL_GUARDED_BY(mu_) = 0;         // > 0: open a watch from this revision
  uint64_t watch_generation_ ABSL_GUARDED_BY(mu_) = 0;  // a restart ends older watches
  bool watch_current_ ABSL_GUARDED_BY(mu_) = false;     // this generation's watch is open
  EtcdWatch* open_watch_ ABSL_GUARDED_BY(mu_) = nullptr;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread watcher_;
};

}  // namespace topoplace::store

#endif  // TOPOPLACE_STORE_ETCD_ETCD_LEDGER_H_
