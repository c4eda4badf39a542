// Import of a generated ibnetdiscover dump of about 100k HCAs (391 blocks x 32 hosts x
// 8 rails = 100,096), the scale the discovery issue asks for (target: under 2 s).
//
//   build/tests/bench/ibnetdiscover_import_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true    (one command line)
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "topology/discovery/fabric_import.h"
#include "topology/discovery/ibnetdiscover.h"
#include "topology/discovery/ibnetdiscover_generator.h"

namespace {

using topoplace::discovery::IbDumpShape;

const std::string& Dump() {
  static const std::string* dump =
      new std::string(topoplace::discovery::GenerateIbnetdiscoverDump(IbDumpShape{}));
  return *dump;
}

// Text -> facts only.
void BM_ParseIbnetdiscover100k(benchmark::State& state) {
  const std::string& dump = Dump();
  for (auto _ : state) {
    auto facts = topoplace::discovery::ParseIbnetdiscover(dump, "bench");
    if (!facts.ok()) state.SkipWithError(std::string(facts.status().message()).c_str());
    benchmark::DoNotOptimize(facts);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * dump.size()));
}
BENCHMARK(BM_ParseIbnetdiscover100k)->Unit(benchmark::kMillisecond)->UseRealTime();

// Text -> facts -> merged -> built Fabric with its hierarchy inferred: `fabric import`.
void BM_ImportIbnetdiscover100k(benchmark::State& state) {
  const std::string& dump = Dump();
  for (auto _ : state) {
    auto facts = topoplace::discovery::ParseIbnetdiscover(dump, "bench");
    if (!facts.ok()) {
      state.SkipWithError(std::string(facts.status().message()).c_str());
      break;
    }
    std::vector<topoplace::discovery::FabricFacts> all;
    all.push_back(*std::move(facts));
    auto fabric = topoplace::discovery::BuildFabricFromFacts(std::move(all), "bench");
    if (!fabric.ok()) state.SkipWithError(std::string(fabric.status().message()).c_str());
    benchmark::DoNotOptimize(fabric);
  }
}
BENCHMARK(BM_ImportIbnetdiscover100k)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
