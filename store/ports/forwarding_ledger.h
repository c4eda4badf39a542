// A Ledger that hands every call to the ledger it wraps: the base of decorators that
// change a few calls and pass the rest through (the daemon's ObservedLedger, test doubles
// that gate or count writes).
//
//   class Counting final : public ForwardingLedger {
//     using ForwardingLedger::ForwardingLedger;
//     absl::StatusOr<Allocation> Reserve(const ReserveRequest& r) override { ... }
//   };
//
// Thread-safe as the wrapped ledger is. The wrapped ledger must outlive this one.
#ifndef TOPOPLACE_STORE_PORTS_FORWARDING_LEDGER_H_
#define TOPOPLACE_STORE_PORTS_FORWARDING_LEDGER_H_

#include <optional>
#include <string>
#include <vector>

#include "store/ports/ledger.h"

namespace topoplace::store {

class ForwardingLedger : public Ledger {
 public:
  explicit ForwardingLedger(Ledger& inner) : inner_(inner) {}

  absl::StatusOr<ledger::Allocation> Reserve(const ReserveRequest& request) override {
    return inner_.Reserve(request);
  }
  absl::StatusOr<ledger::Allocation> FindByRequestId(const std::string& request_id) override {
    return inner_.FindByRequestId(request_id);
  }
  absl::StatusOr<ledger::Allocation> Renew(const std::string& id, absl::Duration ttl) override {
    return inner_.Renew(id, ttl);
  }
  absl::StatusOr<ledger::Allocation> Commit(const std::string& id,
                                            const std::string& external_id) override {
    return inner_.Commit(id, external_id);
  }
  absl::StatusOr<ledger::Allocation> Release(const std::string& id) override {
    return inner_.Release(id);
  }
  absl::StatusOr<ledger::Allocation> Get(const std::string& id) override { return inner_.Get(id); }
  absl::StatusOr<ledger::Allocation> GetByExternalId(const std::string& external_id) override {
    return inner_.GetByExternalId(external_id);
  }
  absl::StatusOr<std::vector<ledger::Allocation>> ListLive() override { return inner_.ListLive(); }
  void ForEachLive(absl::FunctionRef<void(const ledger::Allocation&)> fn) override {
    inner_.ForEachLive(fn);
  }
  absl::StatusOr<int> ReclaimExpired() override { return inner_.ReclaimExpired(); }
  sched::Occupancy Occupancy() override { return inner_.Occupancy(); }
  int64_t held_gpus() override { return inner_.held_gpus(); }
  const Fabric& fabric() const override { return inner_.fabric(); }
  const std::vector<std::string>& warnings() const override { return inner_.warnings(); }
  absl::Status WriteState() override { return inner_.WriteState(); }
  absl::Status ProbeWrites() override { return inner_.ProbeWrites(); }
  absl::Status MayWrite() override { return inner_.MayWrite(); }
  std::optional<StoreUsage> store_usage() override { return inner_.store_usage(); }

 protected:
  Ledger& inner() { return inner_; }

 private:
  Ledger& inner_;
};

}  // namespace topoplace::store

#endif  // TOPOPLACE_STORE_PORTS_FORWARDING_LEDGER_H_
