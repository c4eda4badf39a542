#include "scheduler/sim/sweep_report.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "scheduler/report/plan_report.h"
#include "scheduler/sim/report_writer.h"
#include "scheduler/sim/svg_plot.h"

namespace topoplace::sched::sim {
namespace {

// One metric per policy against offered load.
LineChart Curve(const std::vector<SweepPoint>& points, const std::string& title,
                const std::string& y_label, double (*value)(const PolicyMetrics&)) {
  LineChart chart;
  chart.title = title;
  chart.x_label = "offered load (share of the fabric's GPU-hours, log scale)";
  chart.y_label = y_label;
  chart.log_x = true;
  if (points.empty()) return chart;
  for (size_t p = 0; p < points.front().metrics.size(); ++p) {
    Series s{points.front().metrics[p].policy, {}};
    for (const SweepPoint& point : points) {
      if (p < point.metrics.size()) {
        s.points.emplace_back(point.info.offered_load, value(point.metrics[p]));
      }
    }
    chart.series.push_back(std::move(s));
  }
  return chart;
}

double MeanJctHours(const PolicyMetrics& m) { return m.mean_jct_s / 3600; }
double P95JctHours(const PolicyMetrics& m) { return m.p95_jct_s / 3600; }
double MeanQueueHours(const PolicyMetrics& m) { return m.mean_queue_s / 3600; }
double SpineBytes(const PolicyMetrics& m) { return m.total_spine_bytes; }
double GpuHoursPerDay(const PolicyMetrics& m) { return m.gpu_hours_per_day; }

// "30%", "85%", "150%": a point's offered load, as its heading names it.
std::string OfferedPercent(const SweepPoint& p) {
  return absl::StrFormat("%.0f%%", 100 * p.info.offered_load);
}

}  // namespace

std::string SweepLoadDir(double factor) { return absl::StrFormat("load-%gx", factor); }

std::string RenderSweepMarkdown(const std::vector<SweepPoint>& points, const std::string& command) {
  std::string md = "# Load sweep\n\n";
  if (points.empty()) return md;
  const RunInfo& base = points.front().info;
  std::vector<std::string> offered;
  for (const SweepPoint& p : points) offered.push_back(OfferedPercent(p));
  absl::StrAppend(
      &md, base.trace, " on ", base.fabric, " (", base.fabric_gpus, " GPUs), ", base.jobs,
      " jobs, offering ", absl::StrJoin(offered, ", "),
      " of the fabric's GPU-hours over the arrival span. Regenerate with:\n\n```\n", command,
      "\n```\n\n", "| input | value |\n|---|---|\n", "| network model | ", NetworkModelText(base),
      " |\n", "| routing | ", RoutingText(base), " |\n",
      "| scheduling | FIFO with EASY backfill, window ", base.backfill_window, " jobs |\n",
      "| seed | ", base.seed, " |\n\n",
      "Times in hours. Spine bytes: every job's bytes per iteration that climb to the spine "
      "or above, times its iterations. Lower bound: the sum of each job's least possible "
      "spine bytes on the GPUs free when it started; the gap between the two is the "
      "headroom a better placement had at the time. GPU-h slowdown: run time over trace "
      "duration, weighted by GPU-hours. Below 100% offered the queue drains and policies "
      "compare by JCT; past it the queue grows with the trace and they compare by "
      "throughput (GPU-hours completed per day) and makespan. Each load's full report "
      "(CDFs, utilisation, spread) is in its load-<x>x/ directory, x the load factor.\n\n");
  for (const SweepPoint& p : points) {
    absl::StrAppendFormat(&md, "## %s offered load (%s; load factor %gx, arrival times / %g)\n\n",
                          OfferedPercent(p),
                          p.info.offered_load < 1 ? "stable: compare JCT"
                                                  : "overload: compare throughput and makespan",
                          p.factor, p.info.load_scale);
    absl::StrAppend(&md,
                    "| policy | mean JCT | p95 JCT | p99 JCT | mean queue | mean slowdown "
                    "| GPU-h slowdown | GPU-h/day | makespan | spine bytes | lower bound "
                    "| off NVLink | rejected |\n"
                    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (const PolicyMetrics& m : p.metrics) {
      absl::StrAppendFormat(
          &md, "| %s | %s | %s | %s | %s | %.3f | %.3f | %.0f | %s | %s | %s | %s | %d |\n",
          m.policy, FormatHours(m.mean_jct_s), FormatHours(m.p95_jct_s), FormatHours(m.p99_jct_s),
          FormatHours(m.mean_queue_s), m.mean_slowdown, m.gpu_hour_weighted_slowdown,
          m.gpu_hours_per_day, FormatHours(m.makespan_s), FormatBytes(m.total_spine_bytes),
          FormatBytes(m.total_spine_bytes_lower_bound), FormatBytes(m.total_off_nvlink_bytes),
          m.rejected);
    }
    absl::StrAppend(&md, "\nFull report: [", SweepLoadDir(p.factor), "](", SweepLoadDir(p.factor),
                    "/report.md)\n\n");
  }
  absl::StrAppend(&md,
                  "## Charts\n\n"
                  "![Mean JCT against load](mean_jct.svg)\n\n"
                  "![p95 JCT against load](p95_jct.svg)\n\n"
                  "![Mean queueing against load](mean_queue.svg)\n\n"
                  "![Spine bytes against load](spine_bytes.svg)\n\n"
                  "![GPU-hours completed per day against load](gpu_hours_per_day.svg)\n");
  return md;
}

absl::Status WriteSweepReport(const std::string& dir, const std::vector<SweepPoint>& points,
                              const std::string& command) {
  const std::filesystem::path root(dir);
  if (absl::Status s = CreateReportDir(root); !s.ok()) return s;
  for (const SweepPoint& p : points) {
    if (absl::Status s = WriteReport((root / SweepLoadDir(p.factor)).string(), p.info, p.results,
                                     p.metrics, command);
        !s.ok()) {
      return s;
    }
  }
  const std::pair<const char*, std::string> files[] = {
      {"report.md", RenderSweepMarkdown(points, command)},
      {"mean_jct.svg", RenderLineChart(Curve(points, "Mean JCT", "hours", &MeanJctHours))},
      {"p95_jct.svg", RenderLineChart(Curve(points, "p95 JCT", "hours", &P95JctHours))},
      {"mean_queue.svg",
       RenderLineChart(Curve(points, "Mean queueing delay", "hours", &MeanQueueHours))},
      {"spine_bytes.svg", RenderLineChart(Curve(points, "Total spine bytes",
                                                "bytes climbing to the spine", &SpineBytes))},
      {"gpu_hours_per_day.svg",
       RenderLineChart(
           Curve(points, "Throughput", "GPU-hours completed per day", &GpuHoursPerDay))},
  };
  for (const auto& [name, text] : files) {
    if (absl::Status s = WriteTextFile(root / name, text); !s.ok()) return s;
  }
  return absl::OkStatus();
}

std::string SweepToJson(const std::vector<SweepPoint>& points) {
  std::vector<std::string> factors, runs;
  for (const SweepPoint& p : points) {
    factors.push_back(absl::StrFormat("%.17g", p.factor));
    runs.push_back(SimulationToJson(p.info, p.metrics));
  }
  return absl::StrCat(R"({"schema":"topoplace.simulation-sweep/v1","load_factors":[)",
                      absl::StrJoin(factors, ","), R"(],"runs":[)", absl::StrJoin(runs, ","), "]}");
}

}  // namespace topoplace::sched::sim
