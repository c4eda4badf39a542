#include "scheduler/load/current_uplink_load.h"

#include "scheduler/state/uplink_load.h"

namespace topoplace::sched {

std::vector<double> CurrentUplinkLoad(const UplinkLoadSources& sources, absl::Time now,
                                      store::Ledger* ledger) {
  std::vector<double> shares;
  if (sources.file) shares = sources.file();
  if (sources.measured) KeepLargerShares(shares, sources.measured(now));
  if (sources.held != nullptr) KeepLargerShares(shares, sources.held->Current(*ledger));
  return shares;
}

}  // namespace topoplace::sched
