#include "scheduler/sim/metrics.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace topoplace::sched::sim {
namespace {

double Mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

// Integral of the busy step function over [from, to].
double BusyIntegral(const std::vector<BusyStep>& steps, double from, double to) {
  double area = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    const double a = std::max(steps[i].time_s, from);
    const double b = std::min(i + 1 < steps.size() ? steps[i + 1].time_s : to, to);
    if (b > a) area += static_cast<double>(steps[i].busy) * (b - a);
  }
  return area;
}

// The completed jobs of `jobs` by size class (kSizeClassBounds, then larger).
std::vector<SizeClassMetrics> BySize(const std::vector<JobRecord>& jobs) {
  constexpr size_t kClasses = std::size(kSizeClassBounds) + 1;
  std::vector<std::vector<double>> jct(kClasses), queue(kClasses);
  for (const JobRecord& r : jobs) {
    if (r.outcome != JobOutcome::kCompleted) continue;
    const size_t c = static_cast<size_t>(
        std::lower_bound(std::begin(kSizeClassBounds), std::end(kSizeClassBounds), r.gpus) -
        std::begin(kSizeClassBounds));
    jct[c].push_back(r.jct_s());
    queue[c].push_back(r.queue_s());
  }
  std::vector<SizeClassMetrics> classes(kClasses);
  for (size_t c = 0; c < kClasses; ++c) {
    classes[c] = {.max_gpus = c < std::size(kSizeClassBounds) ? kSizeClassBounds[c] : 0,
                  .jobs = static_cast<int64_t>(jct[c].size()),
                  .mean_jct_s = Mean(jct[c]),
                  .p95_jct_s = Percentile(jct[c], 95),
                  .mean_queue_s = Mean(queue[c])};
  }
  return classes;
}

}  // namespace

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double rank = std::ceil(p / 100.0 * static_cast<double>(values.size()));
  const size_t index =
      static_cast<size_t>(std::clamp(rank, 1.0, static_cast<double>(values.size()))) - 1;
  return values[index];
}

std::vector<std::pair<double, double>> EmpiricalCdf(std::vector<double> values, int max_points) {
  std::vector<std::pair<double, double>> cdf;
  if (values.empty() || max_points < 1) return cdf;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  const size_t points = std::min(n, static_cast<size_t>(max_points));
  for (size_t k = 1; k <= points; ++k) {
    const size_t rank = (k * n + points - 1) / points;  // ceil(k*n/points), last is n
    cdf.emplace_back(values[rank - 1], static_cast<double>(rank) / static_cast<double>(n));
  }
  return cdf;
}

std::vector<std::pair<double, double>> UtilisationSeries(const SimResult& result, int buckets) {
  std::vector<std::pair<double, double>> series;
  const auto& steps = result.busy_steps;
  if (steps.size() < 2 || buckets < 1 || result.total_gpus == 0) return series;
  const double from = steps.front().time_s, to = steps.back().time_s;
  if (!(to > from)) return series;
  const double width = (to - from) / buckets;
  for (int b = 0; b < buckets; ++b) {
    const double lo = from + b * width, hi = lo + width;
    series.emplace_back(lo + width / 2, BusyIntegral(steps, lo, hi) / width /
                                            static_cast<double>(result.total_gpus));
  }
  return series;
}

namespace {

// What Summarize gathers job by job before it reduces it.
struct Tallies {
  std::vector<double> queue, jct, place_us, slowdown, high_jct, low_jct;
  std::vector<double> dp_blocks, dp_leaves, pp_blocks, pp_leaves;
  double first_arrival = 0, last_end = 0;
  int64_t cross_block = 0, cross_pod = 0;
  double spine_per_iter_sum = 0;
  double useful_gpu_s = 0, held_gpu_s = 0, held_job_s = 0, weighted_slowdown = 0;
};

// Adds one job: its interruptions and preemptions whatever its outcome, the rest if it ran.
void Tally(const JobRecord& r, PolicyMetrics& m, Tallies& t) {
  t.first_arrival = std::min(t.first_arrival, r.arrival_s);
  const double gpus = static_cast<double>(r.gpus);
  m.interruptions += r.interruptions;
  m.lost_gpu_hours += gpus * (r.lost_work_s + r.restart_work_s) / 3600;
  m.preemptions += r.preemptions;
  m.preempted_gpu_hours += gpus * (r.preempted_lost_work_s + r.preempted_restart_work_s) / 3600;
  m.high_priority_jobs += r.priority > 0;
  t.held_gpu_s += gpus * r.held_s;
  t.held_job_s += r.held_s;
  if (r.outcome == JobOutcome::kRejected) {
    ++m.rejected;
    return;
  }
  ++m.completed;
  t.useful_gpu_s += gpus * r.duration_s;
  t.weighted_slowdown += gpus * r.duration_s * r.slowdown;
  t.last_end = std::max(t.last_end, r.end_s);
  t.queue.push_back(r.queue_s());
  t.jct.push_back(r.jct_s());
  (r.priority > 0 ? t.high_jct : t.low_jct).push_back(r.jct_s());
  t.place_us.push_back(r.place_us);
  t.slowdown.push_back(r.slowdown);
  m.total_spine_bytes += r.spine_bytes_total();
  m.total_spine_bytes_lower_bound += r.spine_bytes_lower_bound_total();
  m.total_off_nvlink_bytes += r.off_nvlink_bytes_total();
  t.spine_per_iter_sum += r.spine_bytes_per_iter;
  m.max_spine_bytes_per_iter = std::max(m.max_spine_bytes_per_iter, r.spine_bytes_per_iter);
  if (r.blocks > 1) ++t.cross_block;
  if (r.pods > 1) ++t.cross_pod;
  if (r.nodes > 1) {
    ++m.multi_node_jobs;
    if (r.dp_blocks >= 0) {
      t.dp_blocks.push_back(r.dp_blocks);
      t.dp_leaves.push_back(r.dp_leaves);
    }
    if (r.pp_blocks >= 0) {
      t.pp_blocks.push_back(r.pp_blocks);
      t.pp_leaves.push_back(r.pp_leaves);
    }
  }
}

// The means, percentiles and rates of the gathered jobs.
void Reduce(const SimResult& result, const Tallies& t, PolicyMetrics& m) {
  if (m.completed > 0) {
    const double n = static_cast<double>(m.completed);
    m.mean_spine_bytes_per_iter = t.spine_per_iter_sum / n;
    m.frac_cross_block = static_cast<double>(t.cross_block) / n;
    m.frac_cross_pod = static_cast<double>(t.cross_pod) / n;
  }
  m.dp_mean_blocks = Mean(t.dp_blocks);
  m.dp_mean_leaves = Mean(t.dp_leaves);
  m.pp_mean_blocks = Mean(t.pp_blocks);
  m.pp_mean_leaves = Mean(t.pp_leaves);
  m.mean_queue_s = Mean(t.queue);
  m.p95_queue_s = Percentile(t.queue, 95);
  m.mean_jct_s = Mean(t.jct);
  m.p95_jct_s = Percentile(t.jct, 95);
  m.p99_jct_s = Percentile(t.jct, 99);
  m.jct_by_size = BySize(result.jobs);
  if (t.useful_gpu_s > 0) m.gpu_hour_weighted_slowdown = t.weighted_slowdown / t.useful_gpu_s;
  m.high_mean_jct_s = Mean(t.high_jct);
  m.high_p95_jct_s = Percentile(t.high_jct, 95);
  m.low_mean_jct_s = Mean(t.low_jct);
  m.mean_slowdown = t.slowdown.empty() ? 1 : Mean(t.slowdown);
  m.max_slowdown = t.slowdown.empty() ? 1 : *std::max_element(t.slowdown.begin(), t.slowdown.end());
  if (t.held_gpu_s > 0) m.goodput = t.useful_gpu_s / t.held_gpu_s;
  if (t.held_job_s > 0) {
    m.interruptions_per_1000_job_hours =
        static_cast<double>(m.interruptions) / (t.held_job_s / 3600) * 1000;
  }
  m.place_mean_us = Mean(t.place_us);
  m.place_p95_us = Percentile(t.place_us, 95);
  m.makespan_s = t.last_end - t.first_arrival;
  if (m.makespan_s > 0) m.gpu_hours_per_day = t.useful_gpu_s / 3600 / (m.makespan_s / 86400);
  if (m.makespan_s > 0 && result.total_gpus > 0) {
    const double capacity = static_cast<double>(result.total_gpus) * m.makespan_s;
    m.utilisation = BusyIntegral(result.busy_steps, t.first_arrival, t.last_end) / capacity;
    m.mean_fragmented_gpus = result.fragmented_gpu_seconds / m.makespan_s;
    m.mean_slurm_block_fragmentation = result.slurm_block_fragmentation_node_seconds / m.makespan_s;
    m.head_blocked_fraction = result.head_blocked_seconds / m.makespan_s;
  }
}

}  // namespace

PolicyMetrics Summarize(const SimResult& result) {
  PolicyMetrics m;
  m.policy = result.policy;
  m.jobs = static_cast<int64_t>(result.jobs.size());
  m.place_calls = result.place_calls;
  m.wall_seconds = result.wall_seconds;
  m.faults = result.faults;
  m.faults_applied = result.faults_applied;
  m.preemption = result.preemption;
  m.look_ahead = result.look_ahead;
  m.preemption_rounds = result.preemption_rounds;
  m.wasted_preemption_rounds = result.wasted_preemption_rounds;
  Tallies t;
  t.first_arrival = result.jobs.empty() ? 0 : result.jobs.front().arrival_s;
  t.last_end = t.first_arrival;
  for (const JobRecord& r : result.jobs) Tally(r, m, t);
  Reduce(result, t, m);
  return m;
}

}  // namespace topoplace::sched::sim
