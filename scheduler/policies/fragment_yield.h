// Jobs to come on NVLink racks (issue 62 point 2): a job larger than one NVLink domain
// that would spread over more domains than it needs, taking the free hosts of partly used
// domains, leaves them to the jobs waiting behind it that could start there now, and
// waits for whole domains, when that is the shorter wait: the waiting jobs' expected waits
// without those hosts (each, until some domain has its hosts free without them) add up to
// more than its own (until as many domains as it needs are wholly free), from the running
// jobs' expected ends. Mean JCT counts every job once, so one job's wait is weighed
// against the sum of the others'.
//
//   TP_ASSIGN_OR_RETURN(out, LeaveFragmentsToWaitingJobs(ctx, std::move(out)));
//
// Applies only to hard jobs (mode=hard; a caller that bounds the wait with max_wait
// relaxes the job to soft once it has waited that long, and a soft job never yields) on
// fabrics whose NVLink domains span hosts, with an outlook that is known (queue_outlook.h).
// Everything else passes through unchanged. Pure function of its input; thread-safe.
#ifndef TOPOPLACE_SCHEDULER_POLICIES_FRAGMENT_YIELD_H_
#define TOPOPLACE_SCHEDULER_POLICIES_FRAGMENT_YIELD_H_

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/framework/placement_policy.h"

namespace topoplace::sched {

// Why a candidate should wait: the waiting jobs it would take partly used domains from.
struct Yield {
  int domains = 0;          // partly used NVLink domains the candidate takes hosts from
  int jobs = 0;             // waiting jobs that fit them now
  double their_wait_s = 0;  // those jobs' expected waits without them, summed
  double own_wait_s = 0;    // the job's expected wait for the whole domains it needs
};

// The yield of `c` when it should wait, nullopt when it should not (see above).
std::optional<Yield> YieldOf(const PlacementContext& ctx, const Candidate& c);

// `out` without the candidates that should wait; ResourceExhausted saying why when that is
// all of them. Preconditions: `out` is not empty; ctx.outlook, where set, passed the
// engine's checks (one entry per host).
absl::StatusOr<std::vector<Candidate>> LeaveFragmentsToWaitingJobs(const PlacementContext& ctx,
                                                                   std::vector<Candidate> out);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_POLICIES_FRAGMENT_YIELD_H_
