// What a caller knows of the jobs to come when it asks for a placement: the jobs waiting
// behind this one and when each busy host is expected to be free. A policy may leave room
// for them (topoplace's does on NVLink racks: scheduler/policies/fragment_yield.h); with
// nothing known (the default) every policy places as if no job waited.
//
//   QueueOutlook outlook;
//   outlook.waiting_nodes = {4, 8};              // two jobs behind, of 4 and 8 hosts
//   outlook.host_free_in_s.assign(hosts, 0.0);   // all free now...
//   outlook.host_free_in_s[h] = 3600;            // ...but h, busy for another hour
//   outlook.run_s = 8 * 3600;                    // this job runs about 8 hours
//
// The simulator fills it from its queue and its running jobs' expected ends (what EASY
// backfill reads); the daemon passes on what a Place or Reserve request's `outlook` says
// (api/proto/topoplace/v1/placement.proto) and, for hosts it does not name, what its
// ledger expects (scheduler/reserve/expected_ends.h); hosts neither knows are free now if
// free.
#ifndef TOPOPLACE_SCHEDULER_FRAMEWORK_QUEUE_OUTLOOK_H_
#define TOPOPLACE_SCHEDULER_FRAMEWORK_QUEUE_OUTLOOK_H_

#include <vector>

namespace topoplace::sched {

struct QueueOutlook {
  // Hosts each other waiting job needs, in queue order: the jobs behind this one (the
  // simulator sends every other job in its backfill window, so a backfill candidate's
  // outlook holds the blocked head too).
  std::vector<int> waiting_nodes;
  // Per host id: seconds from now until the host is expected to be wholly free (0: free
  // now). Empty: unknown. Precondition when not empty: one entry per fabric host, each >= 0.
  std::vector<double> host_free_in_s;
  // This job's expected run, in seconds at its reference speed (a scheduler's time limit;
  // the simulator's trace duration left); 0: unknown. With it, a policy that waits for
  // faster domains (PlacementPolicy::waits_for_faster_domains) weighs the wait against the
  // run time placing now would lose. Precondition: a finite number >= 0.
  double run_s = 0;

  bool known() const { return !waiting_nodes.empty() && !host_free_in_s.empty(); }
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_FRAMEWORK_QUEUE_OUTLOOK_H_
