#include "scheduler/sim/job_records.h"

#include "nlohmann/json.hpp"

namespace topoplace::sched::sim {

std::string JobRecordLines(const RunInfo& info, const SimResult& result, const std::string& policy,
                           std::optional<double> fault_scale) {
  std::string out;
  for (const JobRecord& r : result.jobs) {
    const bool completed = r.outcome == JobOutcome::kCompleted;
    const auto time = [](double t) { return t >= 0 ? nlohmann::ordered_json(t) : nullptr; };
    nlohmann::ordered_json line;
    line["policy"] = policy;
    line["load"] = info.offered_load;
    line["load_scale"] = info.load_scale;
    line["seed"] = info.seed;
    if (fault_scale.has_value()) line["fault_scale"] = *fault_scale;
    line["id"] = r.id;
    line["gpus"] = r.gpus;
    line["nodes"] = r.nodes;
    line["spec"] = r.spec;
    line["priority"] = r.priority;
    line["outcome"] = completed ? "completed" : "rejected";
    line["arrival_s"] = r.arrival_s;
    line["start_s"] = time(r.start_s);
    line["end_s"] = completed ? time(r.end_s) : nullptr;
    line["queue_s"] = r.start_s >= 0 ? nlohmann::ordered_json(r.queue_s()) : nullptr;
    line["jct_s"] = completed && r.end_s >= 0 ? nlohmann::ordered_json(r.jct_s()) : nullptr;
    line["duration_s"] = r.duration_s;
    line["slowdown"] = r.slowdown;
    line["predicted_slowdown"] = r.predicted_slowdown;
    line["slowdown_at_start"] = r.slowdown_at_start;
    line["nvlink_domains"] = r.nvlink_domains;
    line["leaves"] = r.leaves;
    line["blocks"] = r.blocks;
    line["pods"] = r.pods;
    line["off_nvlink_bytes"] = r.off_nvlink_bytes_total();
    line["spine_bytes"] = r.spine_bytes_total();
    line["interruptions"] = r.interruptions;
    line["preemptions"] = r.preemptions;
    line["relaxed"] = r.relaxed;
    out += line.dump();
    out += '\n';
  }
  return out;
}

}  // namespace topoplace::sched::sim
