// Simulator speed: the Philly trace (first 100,000 jobs) replayed on rail-28k under one
// policy, one core. The target is < 60 s per 100k-job run; measured here, never
// asserted in a test.
//
//   build-sim/tests/bench/simulator_bench --benchmark_repetitions=3
//
// The trace is read from $TOPOPLACE_PHILLY_TRACE, else ../shared/traces/philly_trace.csv
// next to the repository (where the shared sample lives).
#include <cstdlib>
#include <filesystem>
#include <string>

#include <benchmark/benchmark.h>
#include "scheduler/sim/metrics.h"
#include "scheduler/sim/simulator.h"
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

void BM_SimulatePhilly100kOnRail28k(benchmark::State& state, const std::string& policy) {
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
  const Simulator sim(*fabric, SimOptions{});
  PolicyMetrics m;
  for (auto _ : state) {
    absl::StatusOr<SimResult> result = sim.Run(*trace, policy);
    if (!result.ok()) {
      state.SkipWithError(std::string(result.status().message()).c_str());
      return;
    }
    m = Summarize(*result);
  }
  state.counters["jobs"] = static_cast<double>(trace->jobs.size());
  state.counters["place_calls"] = static_cast<double>(m.place_calls);
  state.counters["place_mean_us"] = m.place_mean_us;
  state.counters["utilisation"] = m.utilisation;
  state.counters["jobs_per_s"] = benchmark::Counter(static_cast<double>(trace->jobs.size()),
                                                    benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(BM_SimulatePhilly100kOnRail28k, topoplace, std::string("topoplace"))
    ->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_SimulatePhilly100kOnRail28k, first_fit, std::string("first-fit"))
    ->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace
}  // namespace topoplace::sched::sim
