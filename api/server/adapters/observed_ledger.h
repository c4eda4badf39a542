// A Ledger that tells someone after each change: forwards every call to the ledger it
// wraps and, after a call that changed what is held (a Reserve, Renew, Commit or Release
// that succeeded, a ReclaimExpired that reclaimed something), calls `on_change`. The
// daemon hands the web console's change feed to it (api/server/console/change_feed.h), so
// every writer (the gRPC handlers, the sweeper) is seen without each one remembering to.
//
//   ObservedLedger ledger(*backend, [&feed] { feed.Publish(ChangeFeed::kAllocations); });
//
// Thread-safe as the wrapped ledger is; `on_change` is called on the writer's thread,
// without locks of the ledger held, and must be thread-safe. The wrapped ledger must
// outlive this one. Reservations it marks expired are counted by the wrapped ledger
// (read expired_reservations() there).
#ifndef TOPOPLACE_API_SERVER_ADAPTERS_OBSERVED_LEDGER_H_
#define TOPOPLACE_API_SERVER_ADAPTERS_OBSERVED_LEDGER_H_

#include <functional>
#include <string>
#include <utility>

#include "store/ports/forwarding_ledger.h"

namespace topoplace::server {

class ObservedLedger final : public store::ForwardingLedger {
 public:
  ObservedLedger(store::Ledger& inner, std::function<void()> on_change)
      : ForwardingLedger(inner), on_change_(std::move(on_change)) {}

  absl::StatusOr<ledger::Allocation> Reserve(const store::ReserveRequest& request) override;
  absl::StatusOr<ledger::Allocation> Renew(const std::string& id, absl::Duration ttl) override;
  absl::StatusOr<ledger::Allocation> Commit(const std::string& id,
                                            const std::string& external_id) override;
  absl::StatusOr<ledger::Allocation> Release(const std::string& id) override;
  absl::StatusOr<int> ReclaimExpired() override;

 private:
  // Passes `result` through, calling on_change_ first when it is OK.
  absl::StatusOr<ledger::Allocation> Changed(absl::StatusOr<ledger::Allocation> result);

  const std::function<void()> on_change_;
};

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_ADAPTERS_OBSERVED_LEDGER_H_
