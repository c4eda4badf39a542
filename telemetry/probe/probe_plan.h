// Which pairs a host probes in one round. Per rail (NIC index), each host probes one peer
// on the same leaf (rotating through the leaf's hosts round by round, so every same-leaf
// cable is covered over time) and a small sample of same-rail NICs behind other leaves
// (through the spine). The budget caps probes per round; same-leaf probes come first.
//
//   ProbePlanOptions options{.spine_samples = 1, .max_probes_per_round = 8};
//   std::vector<PlannedProbe> plan = PlanProbes(*fabric, host, options, round);
//
// Deterministic for (fabric, host, options, round). Thread-safe (no state).
#ifndef TOPOPLACE_TELEMETRY_PROBE_PROBE_PLAN_H_
#define TOPOPLACE_TELEMETRY_PROBE_PROBE_PLAN_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "topology/model/fabric.h"

namespace topoplace::telemetry {

// The shortest time between an agent's rounds. A round sends two reports (its probe batch
// and its port counters), and the daemon's telemetry budget (kTelemetryBudget in
// api/server/guards/report_budget.h) refills two a second, so an agent at this interval never
// meets it.
inline constexpr absl::Duration kMinProbeInterval = absl::Seconds(1);

struct ProbePlanOptions {
  int spine_samples = 1;                        // per rail per round
  int max_probes_per_round = 16;                // the probe budget of one host
  absl::Duration interval = absl::Seconds(10);  // between rounds, kMinProbeInterval or more
};

struct PlannedProbe {
  NicId local = -1;
  NicId remote = -1;
  Tier tier = Tier::kUnreachable;  // leaf or spine (or core)
};

absl::Status ValidatePlanOptions(const ProbePlanOptions& options);

std::vector<PlannedProbe> PlanProbes(const Fabric& fabric, HostId host,
                                     const ProbePlanOptions& options, uint64_t round);

}  // namespace topoplace::telemetry

#endif  // TOPOPLACE_TELEMETRY_PROBE_PROBE_PLAN_H_
