// Generating and loading the largest reference fabric. Run:
//   build/tests/bench/fabric_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only
// peak_rss_mb is the process's high-water mark after the benchmark (getrusage).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "topology/generate/reference_fabrics.h"
#include "topology/io/fabric_file.h"

namespace topoplace {
namespace {

double PeakRssMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

void BM_GeneratePreset(benchmark::State& state, const char* preset) {
  for (auto _ : state) {
    absl::StatusOr<FabricPtr> fabric = GeneratePreset(preset);
    if (!fabric.ok()) state.SkipWithError(std::string(fabric.status().message()).c_str());
    benchmark::DoNotOptimize(fabric);
  }
  state.counters["peak_rss_mb"] = PeakRssMb();
}

void BM_LoadFabricFile(benchmark::State& state, const char* preset) {
  const std::string path =
      (std::filesystem::temp_directory_path() / (std::string(preset) + "-bench.json")).string();
  absl::Status saved = SaveFabricFile(**GeneratePreset(preset), path);
  if (!saved.ok()) state.SkipWithError(std::string(saved.message()).c_str());
  for (auto _ : state) {
    absl::StatusOr<FabricPtr> fabric = LoadFabricFile(path);
    if (!fabric.ok()) state.SkipWithError(std::string(fabric.status().message()).c_str());
    benchmark::DoNotOptimize(fabric);
  }
  state.counters["file_mb"] = std::filesystem::file_size(path) / 1e6;
  state.counters["peak_rss_mb"] = PeakRssMb();
  std::remove(path.c_str());
}

BENCHMARK_CAPTURE(BM_GeneratePreset, rail_28k, "rail-28k")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GeneratePreset, clos3_100k, "clos3-100k")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LoadFabricFile, rail_28k, "rail-28k")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LoadFabricFile, clos3_100k, "clos3-100k")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace topoplace
