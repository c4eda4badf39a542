#include "store/ports/ledger.h"

namespace topoplace::store {

absl::StatusOr<std::vector<ledger::Allocation>> Ledger::ListLive() {
  std::vector<ledger::Allocation> out;
  ForEachLive([&out](const ledger::Allocation& a) { out.push_back(a); });
  return out;
}

}  // namespace topoplace::store
