// A load sweep: the same comparison (one trace, one fabric, every policy) at several
// loads, written as one Markdown page with curves; every load is named by the share of
// the fabric's GPU-hours it offers (below 100%: stable, compared by JCT; above:
// overload, compared by throughput and makespan):
//   report.md        inputs, one table per load (mean/p95/p99 JCT, queueing, slowdowns,
//                    GPU-hours per day, makespan, spine bytes and their lower bound), and
//                    the charts
//   mean_jct.svg, p95_jct.svg, mean_queue.svg, spine_bytes.svg, gpu_hours_per_day.svg
//                    each metric per policy against offered load
//   load-<x>x/       the full single-load report (report_writer.h) of every load
//
//   std::vector<SweepPoint> points = ...;  // one per load, policies in the same order
//   TP_RETURN_IF_ERROR(WriteSweepReport(dir, points, command));
#ifndef TOPOPLACE_SCHEDULER_SIM_SWEEP_REPORT_H_
#define TOPOPLACE_SCHEDULER_SIM_SWEEP_REPORT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "scheduler/sim/metrics.h"
#include "scheduler/sim/metrics_json.h"
#include "scheduler/sim/sim_result.h"

namespace topoplace::sched::sim {

// One load of the sweep: `factor` times the base offered load (info.load_scale is the
// resulting arrival-time divisor), and every policy's results there.
struct SweepPoint {
  double factor = 1;
  RunInfo info;
  std::vector<SimResult> results;
  std::vector<PolicyMetrics> metrics;  // metrics[i] summarises results[i]
};

// Directory name of one load's report: "load-4x".
std::string SweepLoadDir(double factor);

// The Markdown of the sweep's report.md alone (for tests). `points` ordered by factor.
std::string RenderSweepMarkdown(const std::vector<SweepPoint>& points, const std::string& command);

// Writes the sweep (see above) into `dir`, creating it. Preconditions: every point has the
// same policies in the same order. Internal if a file cannot be written.
absl::Status WriteSweepReport(const std::string& dir, const std::vector<SweepPoint>& points,
                              const std::string& command);

// `topoplace simulate --json` for a sweep (schema "topoplace.simulation-sweep/v1"): the
// factors and one "topoplace.simulation/v1" object per load.
std::string SweepToJson(const std::vector<SweepPoint>& points);

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_SWEEP_REPORT_H_
