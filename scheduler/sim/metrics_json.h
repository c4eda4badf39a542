// The stable JSON of `topoplace simulate --json` (schema "topoplace.simulation/v1"): the
// run's inputs and one object of PolicyMetrics per policy, keys in a fixed order.
#ifndef TOPOPLACE_SCHEDULER_SIM_METRICS_JSON_H_
#define TOPOPLACE_SCHEDULER_SIM_METRICS_JSON_H_

#include <string>
#include <vector>

#include "scheduler/sim/metrics.h"
#include "scheduler/steptime/comm_model.h"

namespace topoplace::sched::sim {

// What a comparison was run on, for the JSON and the report.
struct RunInfo {
  std::string fabric;
  int64_t fabric_gpus = 0;
  std::string trace;
  int64_t jobs = 0;
  double load_scale = 1;
  // The trace's GPU-seconds of work over the fabric's GPU-seconds during its arrivals
  // (OfferedLoad in trace.h), at this load_scale.
  double offered_load = 0;
  uint64_t seed = 1;
  int backfill_window = 0;
  bool rail_local = true;
  // The network model: "alone" (each job at its tiers' bandwidths) or "shared" (max-min
  // shares of every link), and with "shared" how ECMP splits flows ("fluid" or "hash").
  std::string network = "alone";
  std::string ecmp = "fluid";
  CommModelOptions comm;  // the step-time model's constants, as resolved for the fabric
};

std::string SimulationToJson(const RunInfo& info, const std::vector<PolicyMetrics>& metrics);

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_METRICS_JSON_H_
