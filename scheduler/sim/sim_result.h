// What one simulation run produces: one record per trace job and the cluster's busy-GPU
// step function over time. Plain data; metrics.h summarises it.
#ifndef TOPOPLACE_SCHEDULER_SIM_SIM_RESULT_H_
#define TOPOPLACE_SCHEDULER_SIM_SIM_RESULT_H_

#include <cstdint>
#include <string>
#include <vector>

namespace topoplace::sched::sim {

enum class JobOutcome : uint8_t {
  kCompleted,
  // Never placeable on this fabric under this policy (larger than the fabric, or refused
  // by the policy on an empty cluster); dropped so that it does not block the queue.
  kRejected,
};

struct JobRecord {
  int64_t id = 0;
  int64_t gpus = 0;
  int64_t nodes = 0;
  std::string spec;  // the trace's job spec (FormatJobSpec): its shape, model and limits
  double arrival_s = 0;
  double duration_s = 0;  // the trace's, at reference speed
  double start_s = -1;    // -1 if never started; the first start when restarted
  double end_s = -1;
  JobOutcome outcome = JobOutcome::kCompleted;
  std::string reject_reason;
  double slowdown = 1;  // run time / trace duration (comm_model.h)
  // The per-job model's slowdown for its (last) plan, alone on its links
  // (PlacementPlan::step): with shared links, slowdown over this is what sharing and
  // hashed flows cost it.
  double predicted_slowdown = 1;
  // With shared links, the slowdown its links gave it the moment it (last) started, with
  // the jobs running then: what a placement that saw their load and its flows' hashing could
  // have known; slowdown over this is what later jobs cost it. Else predicted_slowdown.
  double slowdown_at_start = 1;
  double spine_bytes_per_iter = 0;  // from the plan
  // The least spine bytes per iteration any placement could have had on the GPUs free
  // when the job started (PlacementPlan::spine_bytes_lower_bound).
  double spine_bytes_lower_bound_per_iter = 0;
  // Bytes per iteration that leave their NVLink domain (the plan's network bytes): on
  // 8-GPU-node fabrics everything between nodes, on NVL72 racks what leaves the rack.
  double off_nvlink_bytes_per_iter = 0;
  double iterations = 0;  // trace duration / reference step time
  int leaves = 0, blocks = 0, pods = 0;
  int nvlink_domains = 0;  // NVLink domains its GPUs sit in (hosts, on 8-GPU-node fabrics)
  // Mean leaves / blocks touched by one DP group and by one PP group (TrafficReport
  // spread); -1 when the job has no such group (dp == 1 or pp == 1).
  double dp_leaves = -1, dp_blocks = -1, pp_leaves = -1, pp_blocks = -1;
  double place_us = 0;   // wall time of the successful Place call
  bool relaxed = false;  // placed beyond its max_tier (soft, or max_wait ran out)
  // Faults (simulator.h SimFaults): times interrupted, useful work lost since the last
  // checkpoint and restart time spent (seconds at reference speed, summed over restarts),
  // and the seconds it held its GPUs over all its runs.
  int interruptions = 0;
  double lost_work_s = 0;
  double restart_work_s = 0;
  double held_s = 0;
  // Preemption (SimPreemption): the job's priority, times it was stopped for a job of
  // higher priority, and the work lost since its last checkpoint and restart time spent
  // because of that (seconds at reference speed, summed).
  int64_t priority = 0;
  int preemptions = 0;
  double preempted_lost_work_s = 0;
  double preempted_restart_work_s = 0;

  double queue_s() const { return start_s - arrival_s; }
  double jct_s() const { return end_s - arrival_s; }
  double spine_bytes_total() const { return spine_bytes_per_iter * iterations; }
  double off_nvlink_bytes_total() const { return off_nvlink_bytes_per_iter * iterations; }
  double spine_bytes_lower_bound_total() const {
    return spine_bytes_lower_bound_per_iter * iterations;
  }
};

// One step of the busy-GPU function: from time_s on, `busy` GPUs are allocated.
struct BusyStep {
  double time_s = 0;
  int64_t busy = 0;
};

struct SimResult {
  std::string policy;
  std::string fabric;
  std::string trace;
  int64_t total_gpus = 0;
  std::vector<JobRecord> jobs;       // trace order
  std::vector<BusyStep> busy_steps;  // time-ordered
  // Integral over time of the fragmented free GPUs (see simulator.h), GPU-seconds.
  double fragmented_gpu_seconds = 0;
  // Integral over time of Slurm's block fragmentation metric
  // (scheduler/state/slurm_block_fragmentation.h), node-seconds.
  double slurm_block_fragmentation_node_seconds = 0;
  // Time the queue's head waited although at least its GPU count was free: the policy's
  // placements, not capacity, held it back (whole free hosts missing, a hard max_tier).
  double head_blocked_seconds = 0;
  int64_t place_calls = 0;         // including failed attempts
  double place_seconds_total = 0;  // wall time inside PlacementEngine::Place
  double wall_seconds = 0;         // wall time of the whole run
  // The fault schedule replayed ("" without faults) and how many of its events began
  // before the run ended.
  std::string faults;
  int64_t faults_applied = 0;
  // Preemption (SimPreemption): the mode's name, look-ahead on or off, the rounds that
  // stopped victims for a head, and those after which the head still could not start.
  std::string preemption = "none";
  bool look_ahead = false;
  int64_t preemption_rounds = 0;
  int64_t wasted_preemption_rounds = 0;
};

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_SIM_RESULT_H_
