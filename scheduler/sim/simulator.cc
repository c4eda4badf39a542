#include "scheduler/sim/simulator.h"

#include <algorithm>

#include "base/status_macros.h"
#include "scheduler/builtin/builtin_plugins.h"
#include "scheduler/policies/topoplace_policy.h"
#include "scheduler/sim/replay.h"

namespace topoplace::sched::sim {

bool WatchesLinkHealth(const std::string& policy) { return policy == kTopoplacePolicyName; }

absl::string_view PreemptionModeName(PreemptionMode mode) {
  switch (mode) {
    case PreemptionMode::kNone:
      return "none";
    case PreemptionMode::kPriorityOnly:
      return "priority-only";
    case PreemptionMode::kTopology:
      return "topology";
  }
  return "none";
}

Simulator::Simulator(FabricPtr fabric, const SimOptions& options)
    : fabric_(std::move(fabric)),
      options_(options),
      engine_(fabric_, {}, BuiltinPlugins(), options.comm),
      comm_(CommModel::ForFabric(*fabric_, options.comm)) {}

absl::StatusOr<SimResult> Simulator::Run(const Trace& trace, const std::string& policy) const {
  // Fail on a bad policy name up front rather than on the first job.
  TP_ASSIGN_OR_RETURN(PlacementPolicyPtr unused, BuiltinPlugins().MakePolicy(policy));
  (void)unused;
  if (!std::is_sorted(
          trace.jobs.begin(), trace.jobs.end(),
          [](const TraceJob& a, const TraceJob& b) { return a.arrival_s < b.arrival_s; })) {
    return absl::InvalidArgumentError("trace: jobs must be sorted by arrival (SortByArrival)");
  }
  if (options_.faults.schedule && !options_.faults.schedule->events.empty() &&
      !options_.shared_links) {
    return absl::InvalidArgumentError(
        "faults need shared links (--network shared): degraded and rerouted links slow jobs "
        "through the link sharing");
  }
  Replay replay(fabric_, engine_, comm_, options_, trace, policy);
  return replay.Run();
}

}  // namespace topoplace::sched::sim
