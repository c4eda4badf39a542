// The per-policy summary of a simulation run: the numbers the report's tables show.
//
//   PolicyMetrics m = Summarize(result);
//
// Queueing delay, JCT and slowdown are over completed jobs; spine bytes, block/pod
// crossing over completed jobs too; DP (PP) spread only over multi-node jobs with dp > 1
// (pp > 1): a single node touches no leaf, and a job without the dimension has no group.
// Utilisation is busy GPU-seconds over total GPUs x makespan (first arrival to last completion).
#ifndef TOPOPLACE_SCHEDULER_SIM_METRICS_H_
#define TOPOPLACE_SCHEDULER_SIM_METRICS_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "scheduler/sim/sim_result.h"

namespace topoplace::sched::sim {

// Completed jobs of one size class: at most `max_gpus` GPUs (0: larger than every bound)
// and more than the class below.
struct SizeClassMetrics {
  int64_t max_gpus = 0;
  int64_t jobs = 0;
  double mean_jct_s = 0, p95_jct_s = 0, mean_queue_s = 0;
};

// The classes' upper bounds: a node of 8 GPUs, a block-sized job, a pod-sized one, a
// 1,024-GPU job; then everything larger.
inline constexpr int64_t kSizeClassBounds[] = {8, 64, 256, 1024};

struct PolicyMetrics {
  std::string policy;
  int64_t jobs = 0, completed = 0, rejected = 0, multi_node_jobs = 0;
  double total_spine_bytes = 0;  // over every job's whole run
  // Sum of every job's spine-bytes lower bound at its placement time, over its whole run:
  // what no policy could have beaten given the same free GPUs at each start.
  double total_spine_bytes_lower_bound = 0;
  double total_off_nvlink_bytes = 0;     // over every job's whole run
  double mean_spine_bytes_per_iter = 0;  // per job, per iteration
  double max_spine_bytes_per_iter = 0;
  double frac_cross_block = 0, frac_cross_pod = 0;  // of completed jobs
  double dp_mean_blocks = 0, dp_mean_leaves = 0;    // multi-node jobs
  double pp_mean_blocks = 0, pp_mean_leaves = 0;
  double mean_queue_s = 0, p95_queue_s = 0;
  double mean_jct_s = 0, p95_jct_s = 0, p99_jct_s = 0;
  double mean_slowdown = 1, max_slowdown = 1;
  // Slowdown weighted by each completed job's GPU-hours of work (GPUs x trace duration):
  // the share of the cluster's time lost to placement, where the mean counts a 1-GPU job
  // as much as a 1,024-GPU one.
  double gpu_hour_weighted_slowdown = 1;
  // Throughput: completed jobs' GPU-hours of work per day of makespan (what an overloaded
  // cluster is judged by, where JCT only measures the queue).
  double gpu_hours_per_day = 0;
  // JCT by job size, one entry per kSizeClassBounds and one for larger jobs, in order.
  std::vector<SizeClassMetrics> jct_by_size;
  double utilisation = 0;           // 0..1
  double mean_fragmented_gpus = 0;  // time-weighted
  // Slurm's block fragmentation metric (nodes), time-weighted: what Slurm's topology/block
  // minimises; 0 on an idle cluster.
  double mean_slurm_block_fragmentation = 0;
  // Share of the makespan the queue's head waited with its GPU count free (SimResult).
  double head_blocked_fraction = 0;
  double makespan_s = 0;
  // Faults (SimResult::faults; "" and zeros without). Goodput: useful GPU-seconds (each
  // completed job's GPUs x its trace duration) over the GPU-seconds jobs held (all their
  // runs, restarts, lost work and slowdowns included). Lost: GPUs x (work lost since the
  // last checkpoint + restart time). Interruptions per 1,000 job-hours of running jobs.
  std::string faults;
  int64_t faults_applied = 0, interruptions = 0;
  double goodput = 1;
  double lost_gpu_hours = 0;
  double interruptions_per_1000_job_hours = 0;
  // Preemption and priorities (SimResult::preemption): jobs of priority > 0 ("high") and
  // their mean and p95 JCT, the others' mean JCT (completed jobs); jobs stopped for a
  // higher priority, rounds that stopped some and rounds in vain (the head still could
  // not start); GPU-hours lost to preemption (GPUs x (work since the last checkpoint +
  // restart time)).
  std::string preemption = "none";
  bool look_ahead = false;
  int64_t high_priority_jobs = 0;
  double high_mean_jct_s = 0, high_p95_jct_s = 0, low_mean_jct_s = 0;
  int64_t preemptions = 0, preemption_rounds = 0, wasted_preemption_rounds = 0;
  double preempted_gpu_hours = 0;
  double place_mean_us = 0, place_p95_us = 0;  // successful Place calls
  int64_t place_calls = 0;
  double wall_seconds = 0;
};

PolicyMetrics Summarize(const SimResult& result);

// The p-th percentile (0..100) of `values` by the nearest-rank method; 0 when empty.
// Sorts a copy.
double Percentile(std::vector<double> values, double p);

// Empirical CDF points (value, fraction <= value) of `values`, at most `max_points` of them
// (evenly spaced ranks, always including the maximum).
std::vector<std::pair<double, double>> EmpiricalCdf(std::vector<double> values, int max_points);

// Utilisation over time: the busy fraction averaged over `buckets` equal time slices of
// [first step, last step]. Pairs of (bucket midpoint, fraction).
std::vector<std::pair<double, double>> UtilisationSeries(const SimResult& result, int buckets);

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_METRICS_H_
