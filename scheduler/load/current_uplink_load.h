// The uplink load placement steers by, from whichever sources a program has: per switch,
// the largest share any of them gives (KeepLargerShares: measured rates already carry the
// running jobs whose plans give another estimate, so sources are never added). Used by
// the daemon (Place, Reserve, the console) and by `topoplace place --ledger`.
//
//   UplinkLoadSources sources{.file = [&] { return file_shares; }, .held = &held};
//   request.uplink_busy = CurrentUplinkLoad(sources, absl::Now(), &ledger);
#ifndef TOPOPLACE_SCHEDULER_LOAD_CURRENT_UPLINK_LOAD_H_
#define TOPOPLACE_SCHEDULER_LOAD_CURRENT_UPLINK_LOAD_H_

#include <functional>
#include <vector>

#include "absl/time/time.h"
#include "scheduler/load/held_uplink_load.h"
#include "store/ports/ledger.h"

namespace topoplace::sched {

// Each source is optional (null: not configured) and may answer empty (nothing known).
struct UplinkLoadSources {
  // The operator's uplink load file (scheduler/state/uplink_load.h's format).
  std::function<std::vector<double>()> file;
  // Rates measured by switch port counters, as of a time.
  std::function<std::vector<double>(absl::Time)> measured;
  // The plans of the allocations a ledger holds.
  HeldUplinkLoad* held = nullptr;
};

// One share per switch id, or empty when no source knows anything. Precondition: `ledger`
// is not null when `sources.held` is set.
std::vector<double> CurrentUplinkLoad(const UplinkLoadSources& sources, absl::Time now,
                                      store::Ledger* ledger);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_LOAD_CURRENT_UPLINK_LOAD_H_
