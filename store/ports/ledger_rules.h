// The rules every ledger backend applies the same way before it writes anything: request
// validation, the record a reservation starts as, the preconditions of a commit or a
// renewal, and how a reservation past its expiry reads. Kept in one place so the SQLite
// and etcd ledgers cannot drift apart.
#ifndef TOPOPLACE_STORE_PORTS_LEDGER_RULES_H_
#define TOPOPLACE_STORE_PORTS_LEDGER_RULES_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "scheduler/ledger/allocation.h"
#include "scheduler/ledger/live_allocations.h"
#include "store/ports/ledger.h"
#include "topology/model/fabric.h"

namespace topoplace::store {

// OK for a ttl in (0, kMaxReservationTtl]; InvalidArgument naming the range otherwise.
absl::Status CheckTtl(absl::Duration ttl);
// "alloc-42" -> 42, or NotFound naming the id.
absl::StatusOr<int64_t> AllocationNumber(const std::string& id);
// NotFound naming allocation `n` (for an id no store has).
absl::Status UnknownAllocation(int64_t n);
// Checks `request` against `fabric` (ttl, a non-empty list of known GPUs, each once) and
// returns the reservation it asks for as of `now`, without an id yet.
absl::StatusOr<ledger::Allocation> NewReservation(const Fabric& fabric,
                                                  const ReserveRequest& request, absl::Time now);
// Most allocations one Reserve may release: each is a compare and up to three operations
// of one etcd transaction, within etcd's default --max-txn-ops of 128.
inline constexpr size_t kMaxReleasing = 32;
// The numbers of `request.releasing` that are live in `live`, each once; InvalidArgument
// for an id that is not "alloc-<n>" or more than kMaxReleasing of them.
absl::StatusOr<std::vector<int64_t>> LiveReleasing(const ledger::LiveAllocations& live,
                                                   const ReserveRequest& request);
// Aborted naming the first GPU of `request` that `live` holds, other than by `releasing`
// (LiveReleasing's numbers); OK if all are free.
absl::Status CheckFree(const Fabric& fabric, const ledger::LiveAllocations& live,
                       const ReserveRequest& request, const std::vector<int64_t>& releasing = {});
// AlreadyExists naming the allocation `request_id` was used by.
absl::Status RequestIdUsed(const std::string& request_id, int64_t by);
// InvalidArgument for an empty external id.
absl::Status CheckExternalId(const std::string& external_id);
// Whether live allocation `a` may be committed to `external_id`: InvalidArgument for an
// empty id, FailedPrecondition if it is committed to another one, AlreadyExists if
// another live allocation holds that id. Returns true when `a` is already committed to
// it (nothing to write).
absl::StatusOr<bool> CheckCommit(const ledger::Allocation& a, const std::string& external_id,
                                 const ledger::LiveAllocations& live);
// FailedPrecondition unless live allocation `a` is a reservation (commits do not expire).
absl::Status CheckRenewable(const ledger::Allocation& a);
// FailedPrecondition naming the final state of finished allocation `a`.
absl::Status Finished(const ledger::Allocation& a);
// `a` as of `now`: a reservation past its expiry reads as expired even before the store
// records it.
ledger::Allocation AsOf(const ledger::Allocation& a, absl::Time now);
// `a` moved to finished `state` at `now`.
ledger::Allocation FinishedAs(ledger::Allocation a, ledger::AllocationState state, absl::Time now);

}  // namespace topoplace::store

#endif  // TOPOPLACE_STORE_PORTS_LEDGER_RULES_H_
