// `topoplace simulate`: replays a job trace on a fabric under one or more placement
// policies (same trace, same seed, one after another) and prints per-policy metrics as a
// table or stable JSON; `--report DIR` also writes the Markdown/SVG report. With --faults
// (the published fault model or a fault trace) or --fault-sweep, links, switches and
// hosts fail and degrade during the replay, and the output is the fault sweep's. With
// --high-priority-share, --preemption and --look-ahead it compares how a scheduler serves
// high-priority jobs that need a block (issue 34).
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "api/cli/commands.h"
#include "base/status_macros.h"
#include "scheduler/builtin/builtin_plugins.h"
#include "scheduler/report/plan_report.h"
#include "scheduler/sim/fault_report.h"
#include "scheduler/sim/fault_trace.h"
#include "scheduler/sim/faults.h"
#include "scheduler/sim/job_records.h"
#include "scheduler/sim/metrics.h"
#include "scheduler/sim/metrics_json.h"
#include "scheduler/sim/priority_mix.h"
#include "scheduler/sim/report_writer.h"
#include "scheduler/sim/simulator.h"
#include "scheduler/sim/study.h"
#include "scheduler/sim/sweep_report.h"
#include "scheduler/sim/synthetic_trace.h"
#include "scheduler/sim/trace.h"
#include "scheduler/steptime/gpu_models.h"
#include "telemetry/health/link_verdict.h"
#include "telemetry/probe/probe_plan.h"
#include "topology/io/fabric_file.h"

namespace topoplace::cli {
namespace {

namespace sim = sched::sim;

struct SimulateOptions {
  std::string fabric;
  std::string trace;
  std::string policies = "all";
  double load_scale = 1;
  std::string offered_load;  // "0.5,0.7": shares of the fabric the trace offers
  int64_t jobs = 0;          // 0: all of a file; 1000 for the synthetic mix
  uint64_t seed = 1;
  int backfill_window = 500;
  std::string network = "alone";
  std::string ecmp = "fluid";
  bool load_aware = false;
  std::string load_sweep;  // "1,4,16": multiples of the offered load; empty: one run
  std::string faults;      // "published" or a fault trace file; empty: none
  double fault_scale = 1;
  uint64_t fault_seed = 0;  // 0: --seed
  std::string fault_sweep;  // "0,1,4": multiples of the published rates
  double checkpoint_interval_s = sim::SimFaults{}.checkpoint_interval_s;
  double restart_s = sim::SimFaults{}.restart_s;
  std::string write_faults;  // write the generated schedule as a fault trace
  double high_priority_share = 0;
  int64_t high_priority_min_gpus = sim::PriorityMix{}.min_gpus;
  std::string preemption = "none";
  bool look_ahead = false;
  std::string gpu_model;    // empty: the fabric's
  double comm_scale = 1;    // communication times x this
  double run_estimate = 1;  // the outlook's run times: durations left x this
  std::string weights;      // scorer weight overrides, as place --weights
  bool json = false;
  std::string report;
  std::string jobs_out;  // JSON Lines, one per job per policy per point
  std::string command;   // as typed, for the report
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

// A sweep's factors ("1,4,16"), or {1} without a sweep; `flag` names the option, and
// `zero_ok` lets 0 in (no faults).
absl::StatusOr<std::vector<double>> ParseSweep(const std::string& list, absl::string_view flag,
                                               bool zero_ok) {
  if (list.empty()) return std::vector<double>{1};
  std::vector<double> factors;
  for (absl::string_view item : absl::StrSplit(list, ',')) {
    double x = 0;
    if (!absl::SimpleAtod(item, &x) || !(x > 0 || (zero_ok && x == 0)) || !std::isfinite(x)) {
      return absl::InvalidArgumentError(absl::StrCat(
          flag, ": expected ", zero_ok ? "numbers >= 0" : "positive numbers",
          " separated by commas (e.g. ", zero_ok ? "0,1,4" : "1,4,16", "), got '", item, "'"));
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
      "%s on %s (%d GPUs), %d jobs, load scale %g (offered load %.2f), seed %d, network %s\n",
      info.trace, info.fabric, info.fabric_gpus, info.jobs, info.load_scale, info.offered_load,
      info.seed, info.network == "shared" ? "shared (ECMP " + info.ecmp + ")" : info.network);
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
  const bool priorities = std::any_of(metrics.begin(), metrics.end(), [](const auto& m) {
    return m.high_priority_jobs > 0 || m.preemption != "none" || m.look_ahead;
  });
  if (!priorities) return;
  ctx.out << absl::StrFormat("%-14s %13s %9s %9s %9s %9s %9s %8s %9s\n", "policy", "preemption",
                             "high jobs", "high JCT", "high p95", "other JCT", "stopped", "in vain",
                             "lost GPU-h");
  for (const sim::PolicyMetrics& m : metrics) {
    ctx.out << absl::StrFormat("%-14s %13s %9d %9.2f %9.2f %9.2f %9d %8d %9.0f\n", m.policy,
                               m.preemption + (m.look_ahead ? "+la" : ""), m.high_priority_jobs,
                               m.high_mean_jct_s / 3600, m.high_p95_jct_s / 3600,
                               m.low_mean_jct_s / 3600, m.preemptions, m.wasted_preemption_rounds,
                               m.preempted_gpu_hours);
  }
}

absl::StatusOr<sim::PreemptionMode> ParsePreemptionMode(const std::string& name) {
  for (sim::PreemptionMode mode : {sim::PreemptionMode::kNone, sim::PreemptionMode::kPriorityOnly,
                                   sim::PreemptionMode::kTopology}) {
    if (name == sim::PreemptionModeName(mode)) return mode;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--preemption: expected none, priority-only or topology, got '", name, "'"));
}

// Where the fault model's figures come from, for the fault report.
std::string FaultAssumptions(const sim::SimFaults& f, const sim::FaultRates& r) {
  return absl::StrFormat(
      "Fault model (scheduler/sim/faults.cc and simulator.h name every source): per element "
      "and day, host failures %.3g (Llama 3, Table 5), switch failures %.3g and link failures "
      "%.3g (Alibaba HPN), link degradations to %.0f%% capacity %.3g (assumed: as often as "
      "failures; no public rate); repairs in %.0f h (host), %.0f h (switch), %.0f h (link), "
      "degradations for %.0f h (assumed: no public MTTR). Checkpoints every %.0f h of work "
      "(HPN), restarts cost %.0f min (MegaScale). topoplace learns of a link or switch fault "
      "%.0f s after it begins (probe interval x the health model's bad samples) and of its "
      "repair %.0f s after; the baselines learn only of faults that cut hosts off (host, NIC "
      "cable, leaf), at once, as every policy does. A fault scale multiplies every rate.\n",
      r.host_fail_per_day, r.switch_fail_per_day, r.link_fail_per_day, 100 * r.degrade_capacity,
      r.link_degrade_per_day, r.host_repair_s / 3600, r.switch_repair_s / 3600,
      r.link_repair_s / 3600, r.degrade_duration_s / 3600, f.checkpoint_interval_s / 3600,
      f.restart_s / 60, f.detect_s, f.recover_s);
}

// Adds to `study` the faults the flags ask for, after checking them.
absl::Status AddFaults(const SimulateOptions& opt, sim::Study& study) {
  const bool from_file = !opt.faults.empty() && opt.faults != "published";
  if (from_file && !opt.fault_sweep.empty()) {
    return absl::InvalidArgumentError(
        "--fault-sweep scales the published fault model; a fault trace (--faults FILE) is "
        "replayed as written");
  }
  if (opt.network != "shared") {
    return absl::InvalidArgumentError(
        "--faults and --fault-sweep need --network shared: degraded and rerouted links slow "
        "jobs through the link sharing");
  }
  sim::FaultStudy faults;
  faults.seed = opt.fault_seed != 0 ? opt.fault_seed : opt.seed;
  faults.scales = {from_file ? 1 : opt.fault_scale};
  if (!opt.fault_sweep.empty()) {
    TP_ASSIGN_OR_RETURN(faults.scales,
                        ParseSweep(opt.fault_sweep, "--fault-sweep", /*zero_ok=*/true));
  }
  // The fault process draws events in proportion to the scale: at 1e6 it ran out of memory
  // (hardening round four, finding 8). 1,000 times the published rates is a failure every
  // few minutes on the largest reference fabric, past any cluster worth simulating.
  constexpr double kMaxFaultScale = 1000;
  for (double scale : faults.scales) {
    if (!(scale >= 0 && scale <= kMaxFaultScale)) {
      return absl::InvalidArgumentError(absl::StrCat(
          opt.fault_sweep.empty() ? "--fault-scale" : "--fault-sweep", ": expected 0 to ",
          kMaxFaultScale, " times the published fault rates, got ", scale));
    }
  }
  if (from_file) {
    TP_ASSIGN_OR_RETURN(sim::FaultSchedule schedule,
                        sim::LoadFaultTraceFile(opt.faults, *study.fabric));
    faults.replay = std::make_shared<const sim::FaultSchedule>(std::move(schedule));
  }
  // Detection as the daemon's health model would: probe rounds x samples its hysteresis
  // waits for, to worsen and to recover.
  sim::SimFaults& f = study.options.faults;
  const double probe_s = absl::ToDoubleSeconds(telemetry::ProbePlanOptions{}.interval);
  f.detect_s = probe_s * telemetry::HysteresisOptions{}.worsen_after;
  f.recover_s = probe_s * telemetry::HysteresisOptions{}.recover_after;
  study.faults = std::move(faults);
  return absl::OkStatus();
}

// The study the flags describe.
absl::StatusOr<sim::Study> StudyOf(const SimulateOptions& opt) {
  sim::Study study;
  TP_ASSIGN_OR_RETURN(study.policies, ParsePolicies(opt.policies));
  if (opt.backfill_window < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--backfill-window: expected >= 0, got ", opt.backfill_window));
  }
  if (!opt.offered_load.empty() && (opt.load_scale != 1 || !opt.load_sweep.empty())) {
    return absl::InvalidArgumentError(
        "--offered-load sets the arrival rate itself: give it without --load-scale and "
        "--load-sweep");
  }
  TP_ASSIGN_OR_RETURN(study.load_factors,
                      opt.offered_load.empty()
                          ? ParseSweep(opt.load_sweep, "--load-sweep", /*zero_ok=*/false)
                          : ParseSweep(opt.offered_load, "--offered-load", /*zero_ok=*/false));
  study.load_scale = opt.load_scale;
  sim::SimOptions& o = study.options;
  TP_ASSIGN_OR_RETURN(o.ecmp, sched::ParseEcmpMode(opt.ecmp));
  TP_ASSIGN_OR_RETURN(study.fabric, LoadFabricSpec(opt.fabric));
  TP_ASSIGN_OR_RETURN(
      study.trace,
      sim::LoadStudyTrace(*study.fabric, {.trace = opt.trace,
                                          .jobs = opt.jobs,
                                          .seed = opt.seed,
                                          .priorities = {.share = opt.high_priority_share,
                                                         .min_gpus = opt.high_priority_min_gpus}}));
  // Load factors X are then offered loads: the base load offers the whole fabric.
  if (!opt.offered_load.empty()) {
    TP_ASSIGN_OR_RETURN(study.load_scale,
                        sim::LoadScaleForOffer(study.trace, *study.fabric, /*offered_load=*/1));
  }
  o.seed = opt.seed;
  o.backfill_window = opt.backfill_window;
  o.shared_links = opt.network == "shared";
  o.load_aware = opt.load_aware;
  if (!opt.gpu_model.empty() && sched::FindGpuModel(opt.gpu_model) == nullptr) {
    std::vector<std::string> known;
    for (const sched::GpuModel& m : sched::GpuModels()) known.emplace_back(m.name);
    return absl::InvalidArgumentError(absl::StrCat("--gpu-model: unknown model '", opt.gpu_model,
                                                   "', expected one of ",
                                                   absl::StrJoin(known, ", ")));
  }
  if (!(opt.comm_scale > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--comm-scale: expected a factor > 0, got ", opt.comm_scale));
  }
  if (!(opt.run_estimate > 0) || !std::isfinite(opt.run_estimate)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--run-estimate: expected a finite factor > 0, got ", opt.run_estimate));
  }
  o.run_estimate = opt.run_estimate;
  o.comm.gpu_model = opt.gpu_model;
  o.comm.comm_scale = opt.comm_scale;
  TP_ASSIGN_OR_RETURN(o.weights, sched::BuiltinPlugins().ParseScorerWeights(opt.weights));
  TP_ASSIGN_OR_RETURN(o.preemption.mode, ParsePreemptionMode(opt.preemption));
  o.preemption.look_ahead = opt.look_ahead;
  if (!(opt.checkpoint_interval_s >= 0) || !(opt.restart_s >= 0)) {
    return absl::InvalidArgumentError(
        "--checkpoint-interval and --restart-cost: expected seconds >= 0");
  }
  // Preempted jobs lose work and restart as interrupted ones do.
  o.faults.checkpoint_interval_s = opt.checkpoint_interval_s;
  o.faults.restart_s = opt.restart_s;
  if (!opt.faults.empty() || !opt.fault_sweep.empty()) TP_RETURN_IF_ERROR(AddFaults(opt, study));
  return study;
}

absl::Status WriteFaultSweep(CliContext& ctx, const SimulateOptions& opt, const sim::Study& study,
                             const sim::StudyResult& out) {
  if (!opt.write_faults.empty() && out.last_schedule != nullptr) {
    TP_RETURN_IF_ERROR(sim::WriteTextFile(
        opt.write_faults, sim::FormatFaultTrace(*out.last_schedule, *study.fabric)));
  }
  if (!opt.report.empty()) {
    TP_RETURN_IF_ERROR(sim::WriteFaultSweepReport(
        opt.report, out.fault_points, opt.command,
        FaultAssumptions(study.options.faults, sim::PublishedFaultRates())));
  }
  ctx.out << (opt.json ? sim::FaultSweepToJson(out.fault_points) + "\n"
                       : sim::FaultSweepTable(out.fault_points));
  return absl::OkStatus();
}

// Every job of every run of `out` as JSON Lines (job_records.h) into `path`.
absl::Status WriteJobRecords(const std::string& path, const sim::StudyResult& out) {
  std::string lines;
  const auto add = [&](const sim::SweepPoint& point, std::optional<double> fault_scale) {
    for (size_t i = 0; i < point.results.size(); ++i) {
      lines +=
          sim::JobRecordLines(point.info, point.results[i], point.metrics[i].policy, fault_scale);
    }
  };
  for (const sim::SweepPoint& point : out.loads) add(point, std::nullopt);
  for (const sim::FaultSweepPoint& point : out.fault_points) add(point.run, point.fault_scale);
  return sim::WriteTextFile(path, lines);
}

absl::Status RunSimulate(CliContext& ctx, const SimulateOptions& opt) {
  TP_ASSIGN_OR_RETURN(const sim::Study study, StudyOf(opt));
  TP_ASSIGN_OR_RETURN(const sim::StudyResult out, sim::RunStudy(study));
  if (!opt.jobs_out.empty()) TP_RETURN_IF_ERROR(WriteJobRecords(opt.jobs_out, out));
  if (study.faults.has_value()) return WriteFaultSweep(ctx, opt, study, out);
  const std::vector<sim::SweepPoint>& points = out.loads;
  const bool sweep = !opt.load_sweep.empty() || study.load_factors.size() > 1;
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
  if (!opt.offered_load.empty()) absl::StrAppend(&cmd, " --offered-load ", opt.offered_load);
  if (opt.jobs != 0) absl::StrAppend(&cmd, " --jobs ", opt.jobs);
  if (opt.seed != 1) absl::StrAppend(&cmd, " --seed ", opt.seed);
  if (opt.backfill_window != 500) absl::StrAppend(&cmd, " --backfill-window ", opt.backfill_window);
  if (opt.network != "alone") absl::StrAppend(&cmd, " --network ", opt.network);
  if (opt.ecmp != "fluid") absl::StrAppend(&cmd, " --ecmp ", opt.ecmp);
  if (opt.load_aware) absl::StrAppend(&cmd, " --load-aware");
  if (!opt.gpu_model.empty()) absl::StrAppend(&cmd, " --gpu-model ", opt.gpu_model);
  if (opt.comm_scale != 1) absl::StrAppend(&cmd, " --comm-scale ", opt.comm_scale);
  if (opt.run_estimate != 1) absl::StrAppend(&cmd, " --run-estimate ", opt.run_estimate);
  if (!opt.weights.empty()) absl::StrAppend(&cmd, " --weights ", opt.weights);
  if (!opt.load_sweep.empty()) absl::StrAppend(&cmd, " --load-sweep ", opt.load_sweep);
  if (!opt.faults.empty()) absl::StrAppend(&cmd, " --faults ", opt.faults);
  if (opt.fault_scale != 1) absl::StrAppend(&cmd, " --fault-scale ", opt.fault_scale);
  if (opt.fault_seed != 0) absl::StrAppend(&cmd, " --fault-seed ", opt.fault_seed);
  if (!opt.fault_sweep.empty()) absl::StrAppend(&cmd, " --fault-sweep ", opt.fault_sweep);
  if (opt.checkpoint_interval_s != sim::SimFaults{}.checkpoint_interval_s) {
    absl::StrAppend(&cmd, " --checkpoint-interval ", opt.checkpoint_interval_s);
  }
  if (opt.restart_s != sim::SimFaults{}.restart_s) {
    absl::StrAppend(&cmd, " --restart-cost ", opt.restart_s);
  }
  if (opt.high_priority_share != 0) {
    absl::StrAppend(&cmd, " --high-priority-share ", opt.high_priority_share);
  }
  if (opt.high_priority_min_gpus != sim::PriorityMix{}.min_gpus) {
    absl::StrAppend(&cmd, " --high-priority-min-gpus ", opt.high_priority_min_gpus);
  }
  if (opt.preemption != "none") absl::StrAppend(&cmd, " --preemption ", opt.preemption);
  if (opt.look_ahead) absl::StrAppend(&cmd, " --look-ahead");
  absl::StrAppend(&cmd, " --report DIR");
  return cmd;
}

}  // namespace

// Over 80 lines because it is a list: one registration per flag, in --help's order.
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
  cmd->add_option("--offered-load", opt->offered_load,
                  "Scale arrivals so the trace offers X of the fabric's GPU-hours over its "
                  "arrival span (e.g. 0.7; a list 0.3,0.5,0.7,0.85 is a sweep). Instead of "
                  "--load-scale and --load-sweep");
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
  cmd->add_option("--gpu-model", opt->gpu_model,
                  "The GPUs' constants (NVLink, FLOP/s; scheduler/steptime/gpu_models.cc): H100, "
                  "GB200 or GH200; default: the model the fabric's hosts name (H100 if none)");
  cmd->add_option("--weights", opt->weights,
                  "Scorer weights for every policy's placements, as place --weights "
                  "(e.g. step-time=1000)");
  cmd->add_option("--comm-scale", opt->comm_scale,
                  "Multiply every communication time by this (default 1, the calibrated "
                  "model; 2 shows how much a result leans on it)");
  cmd->add_option("--run-estimate", opt->run_estimate,
                  "On NVLink racks the engine is told each job's expected run, to weigh a wait "
                  "for faster racks: its duration left times this (default 1, exact; a time "
                  "limit overestimates, e.g. 2)");
  cmd->add_flag("--load-aware", opt->load_aware,
                "Tell the placement engine how loaded each uplink is (the traffic of running "
                "jobs), so its uplink-load scorer steers new jobs off hot uplinks");
  cmd->add_option("--load-sweep", opt->load_sweep,
                  "Run at each of these multiples of the offered load (e.g. 1,4,16); --report "
                  "then writes the sweep with one sub-report per load");
  cmd->add_option("--faults", opt->faults,
                  "Links, switches and hosts fail and degrade during the replay: 'published' "
                  "(a seeded process at the published rates, scheduler/sim/faults.cc) or a "
                  "'#topoplace-faults v1' file. Needs --network shared");
  cmd->add_option("--fault-scale", opt->fault_scale,
                  "Multiply the published fault rates by X (default 1)");
  cmd->add_option("--fault-seed", opt->fault_seed,
                  "Seed of the fault model alone (default: --seed), to repeat a sweep over "
                  "other fault draws with the same jobs");
  cmd->add_option("--fault-sweep", opt->fault_sweep,
                  "Run at each of these multiples of the published fault rates (e.g. 0,1,4; "
                  "0 = no faults)");
  cmd->add_option("--checkpoint-interval", opt->checkpoint_interval_s,
                  "Seconds of work between a job's checkpoints (default 7200; 0 = no loss)");
  cmd->add_option("--restart-cost", opt->restart_s,
                  "Seconds an interrupted job spends restarting (default 600)");
  cmd->add_option("--write-faults", opt->write_faults,
                  "Write the fault schedule replayed as a '#topoplace-faults v1' file");
  cmd->add_option("--high-priority-share", opt->high_priority_share,
                  "Share (0-1) of the large jobs made high priority (priority 10) and bound to "
                  "one block (hard max_tier=block), drawn per job from --seed");
  cmd->add_option("--high-priority-min-gpus", opt->high_priority_min_gpus,
                  "Smallest job (GPUs) --high-priority-share may choose (default 128)");
  cmd->add_option("--preemption", opt->preemption,
                  "When the queue's head cannot be placed: none (it waits, default), "
                  "priority-only (stop the lowest-priority jobs until enough hosts are free "
                  "anywhere) or topology (stop the jobs topoplace chooses to free one domain)")
      ->check(CLI::IsMember({"none", "priority-only", "topology"}));
  cmd->add_flag("--look-ahead", opt->look_ahead,
                "Keep whole free blocks from other jobs while jobs that need a block wait");
  cmd->add_flag("--json", opt->json, "Print stable JSON instead of a table");
  cmd->add_option("--report", opt->report, "Write report.md and SVG charts into DIR");
  cmd->add_option("--jobs-out", opt->jobs_out,
                  "Write every job of every run as JSON Lines (policy, load, seed, id, GPUs, "
                  "times, slowdown, where it ran, bytes, interruptions, preemptions)");
  cmd->callback([&ctx, opt] {
    opt->command = CommandLine(*opt);
    if (absl::Status s = RunSimulate(ctx, *opt); !s.ok()) ctx.Fail(s);
  });
}

}  // namespace topoplace::cli
