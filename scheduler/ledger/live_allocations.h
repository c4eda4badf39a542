// The ledger's live allocations (reserved or committed) in memory, with every index over
// them: which allocation holds each GPU, the reservations by expiry, the commits by
// external id, and the count of held GPUs. Changed only as a whole (Add, Replace, Remove),
// so the indexes never disagree; whatever store the ledger writes to (SQLite or etcd), it
// updates this view only after the store accepted the change.
//
//   LiveAllocations live(fabric.gpus().size());
//   live.Add(7, reservation, {12, 13});
//   if (std::optional<int64_t> n = live.EarliestExpiredAt(now)) ...
//
// Allocation numbers are > 0. Not thread-safe: the ledger calls it under its lock.
#ifndef TOPOPLACE_SCHEDULER_LEDGER_LIVE_ALLOCATIONS_H_
#define TOPOPLACE_SCHEDULER_LEDGER_LIVE_ALLOCATIONS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "scheduler/ledger/allocation.h"
#include "scheduler/state/occupancy.h"
#include "topology/model/fabric.h"

namespace topoplace::ledger {

class LiveAllocations {
 public:
  explicit LiveAllocations(size_t num_gpus) : holder_(num_gpus, 0) {}

  // Adds live allocation `n` holding `gpus`. Preconditions: `n` > 0 is not live, `a` is
  // reserved or committed, and every GPU of `gpus` is free (Holder) and listed once.
  void Add(int64_t n, Allocation a, std::vector<GpuId> gpus);
  // Replaces the record of live allocation `n` (a commit or a renewal: state, expiry,
  // external id), keeping its GPUs. Precondition: `n` is live and `a` still live.
  void Replace(int64_t n, Allocation a);
  // Removes live allocation `n`, freeing its GPUs, and returns its record. Precondition:
  // `n` is live.
  Allocation Remove(int64_t n);

  // The record of `n`, or nullptr if it is not live.
  const Allocation* Find(int64_t n) const;
  // The allocation holding `gpu`, 0 if it is free.
  int64_t Holder(GpuId gpu) const { return holder_[gpu]; }
  // The live allocation committed to `external_id`, if any.
  std::optional<int64_t> CommittedTo(const std::string& external_id) const;
  // The reservation that expires first, if it expires at or before `now`.
  std::optional<int64_t> EarliestExpiredAt(absl::Time now) const;
  int64_t held_gpus() const { return held_; }
  size_t size() const { return records_.size(); }
  // Marks every held GPU busy in `occupancy` (of the same fabric).
  void MarkHeld(sched::Occupancy& occupancy) const;
  // Live allocations by number.
  const std::map<int64_t, Allocation>& records() const { return records_; }

 private:
  void Index(int64_t n, const Allocation& a);
  void Unindex(int64_t n, const Allocation& a);

  std::map<int64_t, Allocation> records_;
  std::vector<int64_t> holder_;  // per GpuId: allocation number, 0 free
  absl::flat_hash_map<int64_t, std::vector<GpuId>> gpus_of_;
  std::multimap<absl::Time, int64_t> expiries_;  // reserved only
  absl::flat_hash_map<std::string, int64_t> committed_to_;
  int64_t held_ = 0;
};

}  // namespace topoplace::ledger

#endif  // TOPOPLACE_SCHEDULER_LEDGER_LIVE_ALLOCATIONS_H_
