#include "scheduler/sim/metrics_json.h"

#include "nlohmann/json.hpp"

namespace topoplace::sched::sim {

namespace {

// The run's settings and the model's constants.
nlohmann::ordered_json RunJson(const RunInfo& info) {
  nlohmann::ordered_json root;
  root["schema"] = "topoplace.simulation/v1";
  root["fabric"] = info.fabric;
  root["fabric_gpus"] = info.fabric_gpus;
  root["trace"] = info.trace;
  root["jobs"] = info.jobs;
  root["load_scale"] = info.load_scale;
  root["offered_load"] = info.offered_load;
  root["seed"] = info.seed;
  root["scheduling"] = "fifo+easy-backfill";
  root["backfill_window"] = info.backfill_window;
  root["rail_local"] = info.rail_local;
  root["network"] = info.network;
  if (info.network == "shared") root["ecmp"] = info.ecmp;
  root["gpu_model"] = info.comm.gpu_model;
  root["gpu_flops"] = info.comm.gpu_flops;
  root["nvlink_gbps"] = info.comm.nvlink_gbps;
  root["dp_overlap"] = info.comm.dp_overlap;
  root["nvlink_efficiency"] = info.comm.nvlink_efficiency;
  root["nic_efficiency"] = info.comm.nic_efficiency;
  root["comm_scale"] = info.comm.comm_scale;
  return root;
}

nlohmann::ordered_json SizesJson(const std::vector<SizeClassMetrics>& classes) {
  nlohmann::ordered_json sizes = nlohmann::ordered_json::array();
  for (const SizeClassMetrics& c : classes) {
    nlohmann::ordered_json size;
    size["max_gpus"] = c.max_gpus > 0 ? nlohmann::ordered_json(c.max_gpus) : nullptr;
    size["jobs"] = c.jobs;
    size["mean_jct_s"] = c.mean_jct_s;
    size["p95_jct_s"] = c.p95_jct_s;
    size["mean_queue_s"] = c.mean_queue_s;
    sizes.push_back(std::move(size));
  }
  return sizes;
}

nlohmann::ordered_json FaultsJson(const PolicyMetrics& m) {
  nlohmann::ordered_json f;
  f["schedule"] = m.faults;
  f["faults_applied"] = m.faults_applied;
  f["interruptions"] = m.interruptions;
  f["interruptions_per_1000_job_hours"] = m.interruptions_per_1000_job_hours;
  f["lost_gpu_hours"] = m.lost_gpu_hours;
  f["goodput"] = m.goodput;
  return f;
}

nlohmann::ordered_json PreemptionJson(const PolicyMetrics& m) {
  nlohmann::ordered_json q;
  q["mode"] = m.preemption;
  q["look_ahead"] = m.look_ahead;
  q["high_priority_jobs"] = m.high_priority_jobs;
  q["high_mean_jct_s"] = m.high_mean_jct_s;
  q["high_p95_jct_s"] = m.high_p95_jct_s;
  q["low_mean_jct_s"] = m.low_mean_jct_s;
  q["preemptions"] = m.preemptions;
  q["preemption_rounds"] = m.preemption_rounds;
  q["wasted_preemption_rounds"] = m.wasted_preemption_rounds;
  q["preempted_gpu_hours"] = m.preempted_gpu_hours;
  return q;
}

// One policy's entry: outcomes, then the fault and preemption sections where the run had
// them, then the placement latency and wall time (the only keys that differ between reruns).
nlohmann::ordered_json PolicyJson(const PolicyMetrics& m) {
  nlohmann::ordered_json p;
  p["policy"] = m.policy;
  p["jobs"] = m.jobs;
  p["completed"] = m.completed;
  p["rejected"] = m.rejected;
  p["multi_node_jobs"] = m.multi_node_jobs;
  p["total_spine_bytes"] = m.total_spine_bytes;
  p["total_spine_bytes_lower_bound"] = m.total_spine_bytes_lower_bound;
  p["total_off_nvlink_bytes"] = m.total_off_nvlink_bytes;
  p["mean_spine_bytes_per_iter"] = m.mean_spine_bytes_per_iter;
  p["max_spine_bytes_per_iter"] = m.max_spine_bytes_per_iter;
  p["frac_jobs_cross_block"] = m.frac_cross_block;
  p["frac_jobs_cross_pod"] = m.frac_cross_pod;
  p["dp_group_mean_blocks"] = m.dp_mean_blocks;
  p["dp_group_mean_leaves"] = m.dp_mean_leaves;
  p["pp_group_mean_blocks"] = m.pp_mean_blocks;
  p["pp_group_mean_leaves"] = m.pp_mean_leaves;
  p["mean_queue_s"] = m.mean_queue_s;
  p["p95_queue_s"] = m.p95_queue_s;
  p["mean_jct_s"] = m.mean_jct_s;
  p["p95_jct_s"] = m.p95_jct_s;
  p["p99_jct_s"] = m.p99_jct_s;
  p["mean_slowdown"] = m.mean_slowdown;
  p["max_slowdown"] = m.max_slowdown;
  p["gpu_hour_weighted_slowdown"] = m.gpu_hour_weighted_slowdown;
  p["gpu_utilisation"] = m.utilisation;
  p["mean_fragmented_gpus"] = m.mean_fragmented_gpus;
  p["mean_slurm_block_fragmentation"] = m.mean_slurm_block_fragmentation;
  p["head_blocked_fraction"] = m.head_blocked_fraction;
  p["makespan_s"] = m.makespan_s;
  p["gpu_hours_per_day"] = m.gpu_hours_per_day;
  p["jct_by_size"] = SizesJson(m.jct_by_size);
  if (!m.faults.empty()) p["faults"] = FaultsJson(m);
  if (m.preemption != "none" || m.look_ahead || m.high_priority_jobs > 0) {
    p["preemption"] = PreemptionJson(m);
  }
  p["place_calls"] = m.place_calls;
  p["place_mean_us"] = m.place_mean_us;
  p["place_p95_us"] = m.place_p95_us;
  p["wall_seconds"] = m.wall_seconds;
  return p;
}

}  // namespace

std::string SimulationToJson(const RunInfo& info, const std::vector<PolicyMetrics>& metrics) {
  nlohmann::ordered_json root = RunJson(info);
  nlohmann::ordered_json policies = nlohmann::ordered_json::array();
  for (const PolicyMetrics& m : metrics) policies.push_back(PolicyJson(m));
  root["policies"] = std::move(policies);
  return root.dump(2);
}

}  // namespace topoplace::sched::sim
