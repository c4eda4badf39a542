#include "api/server/adapters/observed_ledger.h"

namespace topoplace::server {

absl::StatusOr<ledger::Allocation> ObservedLedger::Changed(
    absl::StatusOr<ledger::Allocation> result) {
  if (result.ok()) on_change_();
  return result;
}

absl::StatusOr<ledger::Allocation> ObservedLedger::Reserve(const store::ReserveRequest& request) {
  return Changed(inner().Reserve(request));
}

absl::StatusOr<ledger::Allocation> ObservedLedger::Renew(const std::string& id,
                                                         absl::Duration ttl) {
  return Changed(inner().Renew(id, ttl));
}

absl::StatusOr<ledger::Allocation> ObservedLedger::Commit(const std::string& id,
                                                          const std::string& external_id) {
  return Changed(inner().Commit(id, external_id));
}

absl::StatusOr<ledger::Allocation> ObservedLedger::Release(const std::string& id) {
  return Changed(inner().Release(id));
}

absl::StatusOr<int> ObservedLedger::ReclaimExpired() {
  absl::StatusOr<int> reclaimed = inner().ReclaimExpired();
  if (reclaimed.ok() && *reclaimed > 0) on_change_();
  return reclaimed;
}

}  // namespace topoplace::server
