#include "scheduler/ledger/ledger.h"

namespace topoplace::ledger {

absl::StatusOr<std::vector<Allocation>> Ledger::ListLive() {
  std::vector<Allocation> out;
  ForEachLive([&out](const Allocation& a) { out.push_back(a); });
  return out;
}

}  // namespace topoplace::ledger
