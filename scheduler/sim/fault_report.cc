#include "scheduler/sim/fault_report.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"
#include "scheduler/sim/metrics.h"
#include "scheduler/sim/report_writer.h"
#include "scheduler/sim/simulator.h"
#include "topology/base/status_macros.h"

namespace topoplace::sched::sim {
namespace {

// Goodput of topoplace and of the best and median baseline at one point; nullopt fields
// when the point has no topoplace or no baseline.
struct Gain {
  double topoplace = -1, best = -1, median = -1;
};

Gain GainAt(const FaultSweepPoint& point) {
  Gain g;
  std::vector<double> baselines;
  for (const PolicyMetrics& m : point.run.metrics) {
    if (WatchesLinkHealth(m.policy)) {
      g.topoplace = m.goodput;
    } else {
      baselines.push_back(m.goodput);
    }
  }
  if (!baselines.empty()) {
    g.best = *std::max_element(baselines.begin(), baselines.end());
    g.median = Percentile(baselines, 50);
  }
  return g;
}

}  // namespace

std::string FaultSweepTable(const std::vector<FaultSweepPoint>& points) {
  std::string out;
  if (points.empty()) return out;
  const RunInfo& info = points.front().run.info;
  absl::StrAppendFormat(&out, "%s on %s (%d GPUs), %d jobs, seed %d, faults %s\n", info.trace,
                        info.fabric, info.fabric_gpus, info.jobs, info.seed,
                        points.front().run.metrics.empty()
                            ? ""
                            : points.front().run.metrics.front().faults);
  absl::StrAppendFormat(&out, "%-6s %-6s %-14s %7s %7s %9s %9s %8s %8s %8s\n", "load", "faults",
                        "policy", "events", "interr", "per 1k h", "lost GPUh", "goodput",
                        "JCT h", "p95 JCT");
  for (const FaultSweepPoint& p : points) {
    for (const PolicyMetrics& m : p.run.metrics) {
      absl::StrAppendFormat(&out, "%-6s %-6s %-14s %7d %7d %9.2f %9.0f %7.2f%% %8.2f %8.2f\n",
                            absl::StrCat(p.run.factor, "x"), absl::StrCat(p.fault_scale, "x"),
                            m.policy, m.faults_applied, m.interruptions,
                            m.interruptions_per_1000_job_hours, m.lost_gpu_hours,
                            100 * m.goodput, m.mean_jct_s / 3600, m.p95_jct_s / 3600);
    }
  }
  return out;
}

std::string FaultSweepToJson(const std::vector<FaultSweepPoint>& points) {
  nlohmann::ordered_json root;
  root["schema"] = "topoplace.fault-sweep/v1";
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const FaultSweepPoint& p : points) {
    nlohmann::ordered_json run;
    run["load_factor"] = p.run.factor;
    run["fault_scale"] = p.fault_scale;
    run["simulation"] = nlohmann::ordered_json::parse(SimulationToJson(p.run.info, p.run.metrics));
    runs.push_back(std::move(run));
  }
  root["runs"] = std::move(runs);
  return root.dump(2);
}

std::string RenderFaultSweepMarkdown(const std::vector<FaultSweepPoint>& points,
                                     const std::string& command, const std::string& assumptions) {
  std::string md = "# Faults: what link-health-aware placement is worth\n\n";
  if (points.empty()) return md;
  const RunInfo& info = points.front().run.info;
  absl::StrAppendFormat(&md,
                        "%s on %s (%d GPUs), %d jobs, seed %d, FIFO + EASY backfill, %s.\n\n",
                        info.trace, info.fabric, info.fabric_gpus, info.jobs, info.seed,
                        NetworkModelText(info));
  absl::StrAppend(&md, "Regenerate: `", command, "`\n\n", assumptions, "\n");
  // Points grouped by load, in the order given.
  std::map<double, std::vector<const FaultSweepPoint*>> by_load;
  for (const FaultSweepPoint& p : points) by_load[p.run.factor].push_back(&p);
  for (const auto& [factor, group] : by_load) {
    absl::StrAppend(&md, "## ", factor, "x offered load\n\n");
    md +=
        "| policy | fault scale | faults | interruptions | per 1,000 job-h | lost GPU-h | "
        "goodput | mean JCT h | p95 JCT h |\n|---|---|---|---|---|---|---|---|---|\n";
    for (const FaultSweepPoint* p : group) {
      for (const PolicyMetrics& m : p->run.metrics) {
        absl::StrAppendFormat(&md, "| %s | %gx | %d | %d | %.2f | %.0f | %.2f%% | %s | %s |\n",
                              m.policy, p->fault_scale, m.faults_applied, m.interruptions,
                              m.interruptions_per_1000_job_hours, m.lost_gpu_hours,
                              100 * m.goodput, FormatHours(m.mean_jct_s),
                              FormatHours(m.p95_jct_s));
      }
    }
    md +=
        "\nGoodput of topoplace (watches link health) against the baselines (node health "
        "only), in percentage points:\n\n| fault scale | topoplace | best baseline | median "
        "baseline | over best | over median |\n|---|---|---|---|---|---|\n";
    for (const FaultSweepPoint* p : group) {
      const Gain g = GainAt(*p);
      if (g.topoplace < 0 || g.best < 0) continue;
      absl::StrAppendFormat(&md, "| %gx | %.2f%% | %.2f%% | %.2f%% | %+.2f | %+.2f |\n",
                            p->fault_scale, 100 * g.topoplace, 100 * g.best, 100 * g.median,
                            100 * (g.topoplace - g.best), 100 * (g.topoplace - g.median));
    }
    md += "\n";
  }
  return md;
}

absl::Status WriteFaultSweepReport(const std::string& dir,
                                   const std::vector<FaultSweepPoint>& points,
                                   const std::string& command, const std::string& assumptions) {
  TP_RETURN_IF_ERROR(CreateReportDir(dir));
  TP_RETURN_IF_ERROR(WriteTextFile(std::filesystem::path(dir) / "report.md",
                                   RenderFaultSweepMarkdown(points, command, assumptions)));
  return WriteTextFile(std::filesystem::path(dir) / "metrics.json",
                       FaultSweepToJson(points) + "\n");
}

}  // namespace topoplace::sched::sim
