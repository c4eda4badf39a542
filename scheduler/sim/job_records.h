// The per-job record of a study (`topoplace simulate --jobs-out FILE`): JSON Lines, one
// object per job per policy per point, so that a result can be explained job by job (which
// jobs a policy slowed, where they ran, what they waited). Keys, in this order:
//   policy, load (the offered load, RunInfo::offered_load), load_scale, seed, fault_scale
//   (fault studies only), id, gpus, nodes, priority, outcome ("completed" or "rejected"),
//   arrival_s, start_s, end_s, queue_s, jct_s (null when never started or ended),
//   duration_s (the trace's), slowdown, predicted_slowdown (the plan's, alone on its links),
//   slowdown_at_start (with the jobs running when it started), nvlink_domains, leaves,
//   blocks, pods, off_nvlink_bytes, spine_bytes (over the whole run), interruptions,
//   preemptions, relaxed.
// Over a policy's completed lines, the mean of end_s - arrival_s is its mean_jct_s.
#ifndef TOPOPLACE_SCHEDULER_SIM_JOB_RECORDS_H_
#define TOPOPLACE_SCHEDULER_SIM_JOB_RECORDS_H_

#include <optional>
#include <string>

#include "scheduler/sim/metrics_json.h"
#include "scheduler/sim/sim_result.h"

namespace topoplace::sched::sim {

// The lines of `result`'s jobs (each ending in '\n'), labelled `policy` (the metrics'
// name: a control run's differs from its policy's) and with the point's inputs from `info`.
std::string JobRecordLines(const RunInfo& info, const SimResult& result, const std::string& policy,
                           std::optional<double> fault_scale);

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_JOB_RECORDS_H_
