// `topoplace simulate`: replays a job trace on a fabric under one or more placement
// policies (same trace, same seed, one after another) and prints per-policy metrics as a
// table or stable JSON; `--report DIR` also writes the Markdown/SVG report.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "api/cli/commands.h"
#include "scheduler/builtin/builtin_plugins.h"
#include "scheduler/report/plan_report.h"
#include "scheduler/sim/metrics.h"
#include "scheduler/sim/metrics_json.h"
#include "scheduler/sim/report_writer.h"
#include "scheduler/sim/simulator.h"
#include "scheduler/sim/sweep_report.h"
#include "scheduler/sim/synthetic_trace.h"
#include "scheduler/sim/trace.h"
#include "topology/base/status_macros.h"
#include "topology/io/fabric_file.h"

namespace topoplace::cli {
namespace {

namespace sim = sched::sim;

struct SimulateOptions {
  std::string fabric;
  std::string trace;
  std::string policies = "all";
  double load_scale = 1;
  int64_t jobs = 0;  // 0: all of a file; 1000 for the synthetic mix
  uint64_t seed = 1;
  int backfill_window = 500;
  std::string network = "alone";
  std::string ecmp = "fluid";
  bool load_aware = false;
  std::string load_sweep;  // "1,4,16": multiples of the offered load; empty: one run
  bool json = false;
  std::string report;
  std::string command;  // as typed, for the report
};

absl::StatusOr<std::vector<std::string>> ParsePolicies(const std::string& list) {
  if (list == "all") return sched::BuiltinPlugins().PolicyNames();
  std::vector<std::string> names = absl::StrSplit(list, ',', absl::SkipEmpty());
  if (names.empty()) {
    return absl::InvalidArgumentError("--policy: expected NAME[,NAME...] or 'all'");
  }
  for (const std::string& name : names) {
    TP_RETURN_IF_ERROR(sched::BuiltinPlugins().MakePolicy(name).status());
  }
  return names;
}

absl::StatusOr<sim::Trace> LoadTrace(const SimulateOptions& opt, const Fabric& fabric) {
  const int64_t fabric_gpus = static_cast<int64_t>(fabric.gpus().size());
  if (opt.jobs < 0) {
    return absl::InvalidArgumentError(absl::StrCat("--jobs: expected >= 0, got ", opt.jobs));
  }
  sim::Trace trace;
  // Jobs the degree rule shapes from a GPU count are shaped for this fabric's hosts.
  const sim::NodeShape shape = sim::NodeShapeOf(fabric);
  if (opt.trace == sim::kLargeMixTraceName || opt.trace == sim::kMoeMixTraceName) {
    sim::LargeMixOptions mix;
    mix.jobs = opt.jobs > 0 ? opt.jobs : mix.jobs;
    mix.seed = opt.seed;
    mix.shape = shape;
    if (opt.trace == sim::kMoeMixTraceName) mix.moe_share = sim::kMoeMixShare;
    TP_ASSIGN_OR_RETURN(trace, sim::GenerateLargeJobMix(fabric_gpus, mix));
  } else {
    TP_ASSIGN_OR_RETURN(trace, sim::LoadTraceFile(opt.trace));
    if (opt.jobs > 0 && static_cast<int64_t>(trace.jobs.size()) > opt.jobs) {
      trace.jobs.resize(static_cast<size_t>(opt.jobs));
    }
    TP_RETURN_IF_ERROR(sim::ReshapeFor(trace, shape));
  }
  return trace;
}

// The sweep's load factors ("1,4,16"), or {1} without a sweep.
absl::StatusOr<std::vector<double>> ParseLoadSweep(const std::string& list) {
  if (list.empty()) return std::vector<double>{1};
  std::vector<double> factors;
  for (absl::string_view item : absl::StrSplit(list, ',')) {
    double x = 0;
    if (!absl::SimpleAtod(item, &x) || !(x > 0) || !std::isfinite(x)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--load-sweep: expected positive numbers separated by commas (e.g. 1,4,16), got '", item,
          "'"));
    }
    factors.push_back(x);
  }
  std::sort(factors.begin(), factors.end());
  factors.erase(std::unique(factors.begin(), factors.end()), factors.end());
  return factors;
}

void PrintTable(CliContext& ctx, const sim::RunInfo& info,
                const std::vector<sim::PolicyMetrics>& metrics) {
  ctx.out << absl::StrFormat(
      "%s on %s (%d GPUs), %d jobs, load scale %g, seed %d, network %s\n", info.trace, info.fabric,
      info.fabric_gpus, info.jobs, info.load_scale, info.seed,
      info.network == "shared" ? "shared (ECMP " + info.ecmp + ")" : info.network);
  ctx.out << absl::StrFormat("%-14s %12s %8s %8s %9s %9s %9s %9s %7s %6s %9s %8s\n", "policy",
                             "spine bytes", "x-block", "rejected", "queue h", "p95 q h", "JCT h",
                             "slowdown", "util", "frag", "place us", "wall s");
  for (const sim::PolicyMetrics& m : metrics) {
    ctx.out << absl::StrFormat(
        "%-14s %12s %7.1f%% %8d %9.2f %9.2f %9.2f %9.3f %6.1f%% %6.0f %9.0f %8.2f\n", m.policy,
        sched::FormatBytes(m.total_spine_bytes), 100 * m.frac_cross_block, m.rejected,
        m.mean_queue_s / 3600, m.p95_queue_s / 3600, m.mean_jct_s / 3600, m.mean_slowdown,
        100 * m.utilisation, m.mean_fragmented_gpus, m.place_mean_us, m.wall_seconds);
  }
}

absl::Status RunSimulate(CliContext& ctx, const SimulateOptions& opt) {
  TP_ASSIGN_OR_RETURN(std::vector<std::string> policies, ParsePolicies(opt.policies));
  if (opt.backfill_window < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--backfill-window: expected >= 0, got ", opt.backfill_window));
  }
  TP_ASSIGN_OR_RETURN(std::vector<double> factors, ParseLoadSweep(opt.load_sweep));
  TP_ASSIGN_OR_RETURN(sched::EcmpMode ecmp, sched::ParseEcmpMode(opt.ecmp));
  TP_ASSIGN_OR_RETURN(FabricPtr fabric, LoadFabricSpec(opt.fabric));
  const int64_t gpus = static_cast<int64_t>(fabric->gpus().size());
  TP_ASSIGN_OR_RETURN(const sim::Trace base_trace, LoadTrace(opt, *fabric));
  sim::SimOptions sim_options;
  sim_options.seed = opt.seed;
  sim_options.backfill_window = opt.backfill_window;
  sim_options.shared_links = opt.network == "shared";
  sim_options.ecmp = ecmp;
  sim_options.load_aware = opt.load_aware;
  const sim::Simulator simulator(fabric, sim_options);

  std::vector<sim::SweepPoint> points;
  for (double factor : factors) {
    sim::Trace trace = base_trace;
    TP_RETURN_IF_ERROR(sim::ScaleLoad(trace, opt.load_scale * factor));
    sim::SweepPoint& point = points.emplace_back();
    point.factor = factor;
    for (const std::string& policy : policies) {
      TP_ASSIGN_OR_RETURN(sim::SimResult result, simulator.Run(trace, policy));
      point.metrics.push_back(sim::Summarize(result));
      point.results.push_back(std::move(result));
    }
    point.info = {fabric->name(),
                  gpus,
                  trace.source,
                  static_cast<int64_t>(trace.jobs.size()),
                  opt.load_scale * factor,
                  opt.seed,
                  opt.backfill_window,
                  sim_options.rail_local,
                  opt.network,
                  std::string(sched::EcmpModeName(ecmp)),
                  sim_options.comm};
  }
  const bool sweep = !opt.load_sweep.empty();
  if (!opt.report.empty()) {
    const sim::SweepPoint& only = points.front();
    TP_RETURN_IF_ERROR(
        sweep ? sim::WriteSweepReport(opt.report, points, opt.command)
              : sim::WriteReport(opt.report, only.info, only.results, only.metrics, opt.command));
  }
  if (opt.json) {
    ctx.out << (sweep ? sim::SweepToJson(points)
                      : sim::SimulationToJson(points.front().info, points.front().metrics))
            << "\n";
    return absl::OkStatus();
  }
  for (const sim::SweepPoint& point : points) PrintTable(ctx, point.info, point.metrics);
  return absl::OkStatus();
}

std::string CommandLine(const SimulateOptions& opt) {
  std::string cmd = absl::StrCat("topoplace simulate --fabric ", opt.fabric, " --trace ", opt.trace,
                                 " --policy ", opt.policies);
  if (opt.load_scale != 1) absl::StrAppend(&cmd, " --load-scale ", opt.load_scale);
  if (opt.jobs != 0) absl::StrAppend(&cmd, " --jobs ", opt.jobs);
  if (opt.seed != 1) absl::StrAppend(&cmd, " --seed ", opt.seed);
  if (opt.backfill_window != 500) absl::StrAppend(&cmd, " --backfill-window ", opt.backfill_window);
  if (opt.network != "alone") absl::StrAppend(&cmd, " --network ", opt.network);
  if (opt.ecmp != "fluid") absl::StrAppend(&cmd, " --ecmp ", opt.ecmp);
  if (opt.load_aware) absl::StrAppend(&cmd, " --load-aware");
  if (!opt.load_sweep.empty()) absl::StrAppend(&cmd, " --load-sweep ", opt.load_sweep);
  absl::StrAppend(&cmd, " --report DIR");
  return cmd;
}

}  // namespace

void RegisterSimulateCommand(CLI::App& app, CliContext& ctx) {
  auto opt = std::make_shared<SimulateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "simulate", "Replay a job trace under placement policies (FIFO + EASY backfill)");
  cmd->add_option("--fabric", opt->fabric, "Fabric file, or preset:NAME")->required();
  cmd->add_option("--trace", opt->trace,
                  "Trace file (Philly-style CSV or '#topoplace-trace v1'), or " +
                      std::string(sim::kLargeMixTraceName) + " or " +
                      std::string(sim::kMoeMixTraceName))
      ->required();
  cmd->add_option("--policy", opt->policies,
                  "Comma-separated policies, or 'all': " +
                      absl::StrJoin(sched::BuiltinPlugins().PolicyNames(), ", "));
  cmd->add_option("--load-scale", opt->load_scale,
                  "Divide arrival times by X (X times the offered load)");
  cmd->add_option("--jobs", opt->jobs,
                  "First N jobs of a trace file; job count of the synthetic mix (default 1000)");
  cmd->add_option("--seed", opt->seed, "Seed for the random policy and the synthetic mix");
  cmd->add_option("--backfill-window", opt->backfill_window,
                  "Jobs behind the queue head considered for backfill per pass");
  cmd->add_option("--network", opt->network,
                  "alone: each job charged by tier bandwidths on its own (default); shared: "
                  "running jobs share links max-min fairly, recomputed at every start and end")
      ->check(CLI::IsMember({"alone", "shared"}));
  cmd->add_option("--ecmp", opt->ecmp,
                  "With --network shared: fluid spreads each leaf's traffic over its uplinks "
                  "(default); hash puts each flow on one uplink by a seeded hash")
      ->check(CLI::IsMember({"fluid", "hash"}));
  cmd->add_flag("--load-aware", opt->load_aware,
                "Tell the placement engine how loaded each uplink is (the traffic of running "
                "jobs), so its uplink-load scorer steers new jobs off hot uplinks");
  cmd->add_option("--load-sweep", opt->load_sweep,
                  "Run at each of these multiples of the offered load (e.g. 1,4,16); --report "
                  "then writes the sweep with one sub-report per load");
  cmd->add_flag("--json", opt->json, "Print stable JSON instead of a table");
  cmd->add_option("--report", opt->report, "Write report.md and SVG charts into DIR");
  cmd->callback([&ctx, opt] {
    opt->command = CommandLine(*opt);
    if (absl::Status s = RunSimulate(ctx, *opt); !s.ok()) ctx.Fail(s);
  });
}

}  // namespace topoplace::cli
