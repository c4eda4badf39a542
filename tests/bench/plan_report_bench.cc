// The plan's JSON (scheduler/report/plan_report.h), written on every Reserve (stored in the
// ledger) and every Place (sent back): a 1,024-GPU job on the empty superpod-4su with its
// link loads, as the daemon's Reserve asks for them (~320 kB of text), and a 64-GPU one.
//
//   build/tests/bench/plan_report_bench
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "scheduler/job/job_spec.h"
#include "scheduler/placement/engine.h"
#include "scheduler/report/plan_report.h"
#include "scheduler/state/occupancy.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::sched {
namespace {

void BM_PlanToJson(benchmark::State& state, const char* job) {
  const FabricPtr fabric = *GeneratePreset("superpod-4su");
  const PlacementEngine engine(fabric);
  PlacementRequest request;
  request.job = *ParseJobSpec(job);
  request.link_loads = true;
  const PlacementPlan plan = *engine.Place(request, Occupancy(*fabric));
  size_t bytes = 0;
  for (auto _ : state) {
    std::string json = PlanToJson(*fabric, plan);
    bytes = json.size();
    benchmark::DoNotOptimize(json);
  }
  state.counters["json_bytes"] = static_cast<double>(bytes);
}

BENCHMARK_CAPTURE(BM_PlanToJson, gpus1024, "tp=8,pp=8,dp=16")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_PlanToJson, gpus64, "tp=8,pp=2,dp=4")->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace topoplace::sched
