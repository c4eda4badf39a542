// Bounded waiting for faster NVLink domains (issue 62, points 1 and 2). On fabrics whose
// NVLink domains span hosts, a job that must spread over partly used racks can run much
// slower than on wholly free ones: the few NICs at a split carry a whole DP group's
// all-reduce (docs/report/FINDINGS.md). The engine times both by the link-step model (each
// plan's busiest cable alone, CommModel::LinkStepSeconds): `now` on the policy's choice,
// `then` on the job's own placement on the empty fabric. The job waits when the caller's
// outlook says as many domains as `then` uses are wholly free sooner than the run time
// placing now would lose,
//
//   wait < run_s * (step_now - step_then) / reference_step,
//
// and never past its max_wait (the caller relaxes the job to soft then, and a soft job
// never waits). Only for policies that ask (PlacementPolicy::waits_for_faster_domains).
//
//   if (std::optional<FasterDomains> w = WaitForFasterDomains(fabric, inv, job, outlook,
//                                                             reference_s, now, then)) {
//     return absl::ResourceExhaustedError(DescribeWait(*w));
//   }
//
// Pure functions; thread-safe.
#ifndef TOPOPLACE_SCHEDULER_PLACEMENT_FASTER_DOMAINS_H_
#define TOPOPLACE_SCHEDULER_PLACEMENT_FASTER_DOMAINS_H_

#include <optional>
#include <string>

#include "scheduler/framework/inventory.h"
#include "scheduler/framework/queue_outlook.h"
#include "scheduler/job/job_spec.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

// A placement timed by the link-step model.
struct StepOn {
  double step_s = 0;  // seconds per iteration, its busiest cable alone
  int domains = 0;    // NVLink domains it uses
};

// Why a job waits: the domains it waits for, when, and what placing now would cost.
struct FasterDomains {
  int domains = 0;          // wholly free NVLink domains it waits for (then.domains)
  double wait_s = 0;        // expected, from the outlook
  double slowdown_now = 1;  // step_now / the reference step
  double slowdown_then = 1;
  double lost_s = 0;  // run time placing now would lose: run_s * (step_now - step_then) / ref
};

// The wait, or nullopt to place now (see above): also nullopt without an outlook that is
// known and has run_s, for a soft job, where NVLink domains do not span hosts, when `now`
// is no slower than `then`, or when the wait would pass the job's max_wait.
// Preconditions: outlook passed the engine's checks; reference_s > 0.
std::optional<FasterDomains> WaitForFasterDomains(const Fabric& fabric, const Inventory& inv,
                                                  const JobSpec& job, const QueueOutlook& outlook,
                                                  double reference_s, const StepOn& now,
                                                  const StepOn& then);

// One sentence for a ResourceExhausted status: the domains, the wait, the two slowdowns.
std::string DescribeWait(const FasterDomains& w);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_PLACEMENT_FASTER_DOMAINS_H_
