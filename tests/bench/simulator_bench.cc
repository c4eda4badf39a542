// Simulator speed, one core, measured here and never asserted in a test:
//  - the Philly trace (first 100,000 jobs) replayed on rail-28k under one policy, each job
//    alone and with shared links (target: under 60 s per run);
//  - 2,500 jobs of the synthetic large-job mix on 7,168 GPUs (rail-28k's design with 8
//    blocks) with shared links, fluid and hashed ECMP (target: a few seconds);
//  - what sharing links costs: 2,000 jobs of the large mix on clos3-100k, every policy,
//    once with each job alone and once with shared links and hashed ECMP; counters give
//    each policy's seconds both ways and their ratio (target: shared within 3x of alone);
//  - the fault sweep of the report (docs/report/faults/): 1,000 jobs of the large mix on
//    rail-28k, shared links, hashed ECMP, every policy at 0, 1 and 4 times the published
//    fault rates, one iteration the whole sweep (target: under 60 s).
//
//   build/tests/bench/simulator_bench --benchmark_repetitions=3
//
// The trace is read from $TOPOPLACE_PHILLY_TRACE, else ../shared/traces/philly_trace.csv
// next to the repository (where the shared sample lives).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "scheduler/builtin/builtin_plugins.h"
#include "scheduler/sim/faults.h"
#include "scheduler/sim/metrics.h"
#include "scheduler/sim/simulator.h"
#include "scheduler/sim/synthetic_trace.h"
#include "scheduler/sim/trace.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::sched::sim {
namespace {

constexpr size_t kJobs = 100'000;
// Arrivals 60x faster than recorded, as in the report's rail-28k-philly scenario
// (deploy/make-report.sh): Philly's bursts then queue on rail-28k, so backfill works.
constexpr double kLoadScale = 60;

std::string TracePath() {
  if (const char* env = std::getenv("TOPOPLACE_PHILLY_TRACE")) return env;
  const std::filesystem::path repo =
      std::filesystem::path(__FILE__).parent_path().parent_path().parent_path();
  return (repo / ".." / "shared" / "traces" / "philly_trace.csv").string();
}

void Report(benchmark::State& state, const Trace& trace, const PolicyMetrics& m) {
  state.counters["jobs"] = static_cast<double>(trace.jobs.size());
  state.counters["place_calls"] = static_cast<double>(m.place_calls);
  state.counters["place_mean_us"] = m.place_mean_us;
  state.counters["utilisation"] = m.utilisation;
  state.counters["jobs_per_s"] =
      benchmark::Counter(static_cast<double>(trace.jobs.size()), benchmark::Counter::kIsRate);
}

// Runs `trace` under `policy` once per iteration; skips the state on error.
void Replay(benchmark::State& state, const FabricPtr& fabric, const Trace& trace,
            const std::string& policy, const SimOptions& options) {
  const Simulator sim(fabric, options);
  PolicyMetrics m;
  for (auto _ : state) {
    absl::StatusOr<SimResult> result = sim.Run(trace, policy);
    if (!result.ok()) {
      state.SkipWithError(std::string(result.status().message()).c_str());
      return;
    }
    m = Summarize(*result);
  }
  Report(state, trace, m);
}

void BM_SimulatePhilly100kOnRail28k(benchmark::State& state, const std::string& policy,
                                    bool shared) {
  absl::StatusOr<FabricPtr> fabric = GeneratePreset("rail-28k");
  absl::StatusOr<Trace> trace = LoadTraceFile(TracePath());
  if (!fabric.ok() || !trace.ok()) {
    state.SkipWithError(!fabric.ok() ? "rail-28k" : "trace not readable (TOPOPLACE_PHILLY_TRACE)");
    return;
  }
  if (trace->jobs.size() > kJobs) trace->jobs.resize(kJobs);
  if (!ScaleLoad(*trace, kLoadScale).ok()) {
    state.SkipWithError("load scale");
    return;
  }
  SimOptions options;
  options.shared_links = shared;
  Replay(state, *fabric, *trace, policy, options);
}

void BM_SimulateLargeMix2500On7k(benchmark::State& state, EcmpMode ecmp) {
  absl::StatusOr<ClosParams> params = PresetParams("rail-28k");
  if (!params.ok()) {
    state.SkipWithError("rail-28k");
    return;
  }
  params->name = "rail-7k";
  params->blocks_per_pod = 8;  // 8 x 112 hosts x 8 GPUs = 7,168 GPUs
  absl::StatusOr<FabricPtr> fabric = GenerateClos(*params);
  absl::StatusOr<Trace> trace =
      fabric.ok() ? GenerateLargeJobMix(static_cast<int64_t>((*fabric)->gpus().size()),
                                        LargeMixOptions{.jobs = 2500})
                  : absl::StatusOr<Trace>(fabric.status());
  if (!trace.ok()) {
    state.SkipWithError(std::string(trace.status().message()).c_str());
    return;
  }
  SimOptions options;
  options.shared_links = true;
  options.ecmp = ecmp;
  Replay(state, *fabric, *trace, "topoplace", options);
}

void BM_SharedOverAloneLargeMix2000OnClos100k(benchmark::State& state) {
  absl::StatusOr<FabricPtr> fabric = GeneratePreset("clos3-100k");
  absl::StatusOr<Trace> trace =
      fabric.ok() ? GenerateLargeJobMix(static_cast<int64_t>((*fabric)->gpus().size()),
                                        LargeMixOptions{.jobs = 2000})
                  : absl::StatusOr<Trace>(fabric.status());
  if (!trace.ok()) {
    state.SkipWithError(std::string(trace.status().message()).c_str());
    return;
  }
  SimOptions alone, shared;
  shared.shared_links = true;
  shared.ecmp = EcmpMode::kHash;
  const Simulator alone_sim(*fabric, alone), shared_sim(*fabric, shared);
  double worst = 0;
  for (auto _ : state) {
    for (const std::string& policy : BuiltinPlugins().PolicyNames()) {
      double seconds[2] = {0, 0};
      for (int i = 0; i < 2; ++i) {
        absl::StatusOr<SimResult> result = (i == 0 ? alone_sim : shared_sim).Run(*trace, policy);
        if (!result.ok()) {
          state.SkipWithError(std::string(result.status().message()).c_str());
          return;
        }
        seconds[i] = result->wall_seconds;
      }
      state.counters[policy + "_alone_s"] = seconds[0];
      state.counters[policy + "_shared_s"] = seconds[1];
      state.counters[policy + "_ratio"] = seconds[1] / seconds[0];
      worst = std::max(worst, seconds[1] / seconds[0]);
    }
  }
  state.counters["worst_ratio"] = worst;
}

void BM_FaultSweepLargeMix1000OnRail28k(benchmark::State& state) {
  absl::StatusOr<FabricPtr> fabric = GeneratePreset("rail-28k");
  absl::StatusOr<Trace> trace =
      fabric.ok() ? GenerateLargeJobMix(static_cast<int64_t>((*fabric)->gpus().size()),
                                        LargeMixOptions{.jobs = 1000})
                  : absl::StatusOr<Trace>(fabric.status());
  if (!trace.ok()) {
    state.SkipWithError(std::string(trace.status().message()).c_str());
    return;
  }
  // The CLI's first horizon (simulate_command.cc): last arrival + longest job + all work
  // on the whole fabric.
  double horizon = 0, longest = 0, gpu_seconds = 0;
  for (const TraceJob& job : trace->jobs) {
    horizon = std::max(horizon, job.arrival_s);
    longest = std::max(longest, job.duration_s);
    gpu_seconds += job.duration_s * static_cast<double>(job.spec.world_size());
  }
  horizon += longest + gpu_seconds / static_cast<double>((*fabric)->gpus().size());
  const std::vector<std::string> policies = BuiltinPlugins().PolicyNames();
  int64_t interruptions = 0;
  for (auto _ : state) {
    interruptions = 0;
    for (double scale : {0.0, 1.0, 4.0}) {
      FaultRates rates = PublishedFaultRates();
      rates.scale = scale;
      absl::StatusOr<FaultSchedule> faults = GenerateFaults(**fabric, rates, 0, horizon, 1);
      if (!faults.ok()) {
        state.SkipWithError(std::string(faults.status().message()).c_str());
        return;
      }
      SimOptions options;
      options.shared_links = true;
      options.ecmp = EcmpMode::kHash;
      options.faults.schedule = std::make_shared<const FaultSchedule>(*std::move(faults));
      const Simulator sim(*fabric, options);
      for (const std::string& policy : policies) {
        absl::StatusOr<SimResult> result = sim.Run(*trace, policy);
        if (!result.ok()) {
          state.SkipWithError(std::string(result.status().message()).c_str());
          return;
        }
        interruptions += Summarize(*result).interruptions;
      }
    }
  }
  state.counters["runs"] = static_cast<double>(3 * policies.size());
  state.counters["interruptions"] = static_cast<double>(interruptions);
}

BENCHMARK(BM_SharedOverAloneLargeMix2000OnClos100k)
    ->Iterations(1)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();
BENCHMARK(BM_FaultSweepLargeMix1000OnRail28k)
    ->Iterations(1)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();

BENCHMARK_CAPTURE(BM_SimulatePhilly100kOnRail28k, topoplace, std::string("topoplace"), false)
    ->Iterations(1)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_SimulatePhilly100kOnRail28k, first_fit, std::string("first-fit"), false)
    ->Iterations(1)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_SimulatePhilly100kOnRail28k, topoplace_shared, std::string("topoplace"), true)
    ->Iterations(1)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_SimulateLargeMix2500On7k, shared_fluid, EcmpMode::kFluid)
    ->Iterations(1)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_SimulateLargeMix2500On7k, shared_hash, EcmpMode::kHash)
    ->Iterations(1)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();

}  // namespace
}  // namespace topoplace::sched::sim
