#include "scheduler/sim/fault_report.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "nlohmann/json.hpp"
#include "scheduler/sim/metrics.h"
#include "scheduler/sim/report_writer.h"
#include "scheduler/sim/simulator.h"

namespace topoplace::sched::sim {
namespace {

// At one point: topoplace, its control run blind to link health, and the best and median
// baseline goodput; null where the point lacks them.
struct Gain {
  const PolicyMetrics* topoplace = nullptr;
  const PolicyMetrics* blind = nullptr;
  double best = -1, median = -1;
};

Gain GainAt(const FaultSweepPoint& point) {
  Gain g;
  std::vector<double> baselines;
  for (const PolicyMetrics& m : point.run.metrics) {
    if (WatchesLinkHealth(m.policy)) {
      g.topoplace = &m;
    } else if (m.policy == kBlindTopoplaceLabel) {
      g.blind = &m;
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
  absl::StrAppendFormat(
      &out, "%s on %s (%d GPUs), %d jobs, seed %d, faults %s\n", info.trace, info.fabric,
      info.fabric_gpus, info.jobs, info.seed,
      points.front().run.metrics.empty() ? "" : points.front().run.metrics.front().faults);
  absl::StrAppendFormat(&out, "%-6s %-6s %-14s %7s %7s %9s %9s %8s %8s %8s\n", "load", "faults",
                        "policy", "events", "interr", "per 1k h", "lost GPUh", "goodput", "JCT h",
                        "p95 JCT");
  for (const FaultSweepPoint& p : points) {
    for (const PolicyMetrics& m : p.run.metrics) {
      absl::StrAppendFormat(&out, "%-6s %-6s %-14s %7d %7d %9.2f %9.0f %7.2f%% %8.2f %8.2f\n",
                            absl::StrCat(p.run.factor, "x"), absl::StrCat(p.fault_scale, "x"),
                            m.policy, m.faults_applied, m.interruptions,
                            m.interruptions_per_1000_job_hours, m.lost_gpu_hours, 100 * m.goodput,
                            m.mean_jct_s / 3600, m.p95_jct_s / 3600);
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
  absl::StrAppendFormat(&md, "%s on %s (%d GPUs), %d jobs, seed %d, FIFO + EASY backfill, %s.\n\n",
                        info.trace, info.fabric, info.fabric_gpus, info.jobs, info.seed,
                        NetworkModelText(info));
  absl::StrAppend(&md, "Regenerate: `", command, "`\n\n", assumptions, "\n");
  // Points grouped by load, in the order given.
  std::map<double, std::vector<const FaultSweepPoint*>> by_load;
  for (const FaultSweepPoint& p : points) by_load[p.run.factor].push_back(&p);
  for (const auto& [factor, group] : by_load) {
    absl::StrAppendFormat(&md, "## %.0f%% offered load (load factor %gx)\n\n",
                          100 * group.front()->run.info.offered_load, factor);
    md +=
        "| policy | fault scale | faults | interruptions | per 1,000 job-h | lost GPU-h | "
        "goodput | mean JCT h | p95 JCT h |\n|---|---|---|---|---|---|---|---|---|\n";
    for (const FaultSweepPoint* p : group) {
      for (const PolicyMetrics& m : p->run.metrics) {
        absl::StrAppendFormat(&md, "| %s | %gx | %d | %d | %.2f | %.0f | %.2f%% | %s | %s |\n",
                              m.policy, p->fault_scale, m.faults_applied, m.interruptions,
                              m.interruptions_per_1000_job_hours, m.lost_gpu_hours, 100 * m.goodput,
                              FormatHours(m.mean_jct_s), FormatHours(m.p95_jct_s));
      }
    }
    md +=
        "\nWhat watching link health is worth: topoplace against the same policy blind to "
        "link and switch faults (topoplace-blind, which like the baselines learns only of "
        "faults that cut hosts off), and against the baselines. Goodput in %, differences "
        "in percentage points, lost GPU-hours to interruptions:\n\n| fault scale | "
        "topoplace | topoplace-blind | link health gains | lost GPU-h | lost GPU-h blind | "
        "best baseline | median baseline |\n|---|---|---|---|---|---|---|---|\n";
    for (const FaultSweepPoint* p : group) {
      const Gain g = GainAt(*p);
      if (g.topoplace == nullptr || g.blind == nullptr) continue;
      const auto percent = [](double x) {
        return x < 0 ? std::string("-") : absl::StrFormat("%.2f%%", 100 * x);
      };
      absl::StrAppendFormat(&md, "| %gx | %.2f%% | %.2f%% | %+.2f | %.0f | %.0f | %s | %s |\n",
                            p->fault_scale, 100 * g.topoplace->goodput, 100 * g.blind->goodput,
                            100 * (g.topoplace->goodput - g.blind->goodput),
                            g.topoplace->lost_gpu_hours, g.blind->lost_gpu_hours, percent(g.best),
                            percent(g.median));
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
