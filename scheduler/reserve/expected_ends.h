// When each host is expected to be wholly free, from what the ledger holds: the daemon's
// own part of a request's outlook (QueueOutlook::host_free_in_s), so a caller that sends
// its queue and its job's run (a Slurm or Kubernetes adapter) does not need to know every
// other job's end. An allocation's end is known when its Reserve gave the run
// (Allocation::expected_end).
//
//   std::vector<double> ends = ExpectedHostEnds(ledger, absl::Now());
//   if (ends[h] > 0) ...  // h is held, and expected wholly free in ends[h] seconds
//
// Thread-safe as the ledger is (it reads under the ledger's lock).
#ifndef TOPOPLACE_SCHEDULER_RESERVE_EXPECTED_ENDS_H_
#define TOPOPLACE_SCHEDULER_RESERVE_EXPECTED_ENDS_H_

#include <vector>

#include "absl/time/time.h"
#include "store/ports/ledger.h"

namespace topoplace::sched {

// Per host of the ledger's fabric: seconds from `now` until the last live allocation on it
// is expected to end, at least 0; 0 as well for a host nothing holds and for one that an
// allocation of unknown end holds (QueueOutlook's "not named": free now if free, else of
// unknown end). A host the fabric no longer has (an allocation of an older fabric) is
// passed over.
std::vector<double> ExpectedHostEnds(store::Ledger& ledger, absl::Time now);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_RESERVE_EXPECTED_ENDS_H_
