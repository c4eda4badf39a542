// The web console's documents over HTTP on loopback, from a topoplaced serving a large
// fabric with about 60 % of its GPUs held by jobs of 256 to 2,048 GPUs (reserved through
// the gRPC API, as in the console's browser test): the snapshot the cluster map draws
// (rail-28k and clos3-100k), the allocations list and a 2,048-GPU job's page.
//
//   build/tests/bench/console_bench --benchmark_repetitions=5
#include <benchmark/benchmark.h>
#include <httplib.h>

#include <map>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "api/server/wiring/topoplace_server.h"
#include "client/topoplace_client.h"
#include "scheduler/ledger/clock.h"
#include "tests/integration/service/support/temp_dir.h"

namespace topoplace {
namespace {

struct LoadedDaemon {
  testing::TempDir dir;
  std::unique_ptr<server::TopoplaceServer> server;
  std::string large_job;  // a 2,048-GPU allocation
  int64_t held = 0;
};

// One daemon per preset, started on first use and filled to 60 % of its GPUs.
LoadedDaemon& Daemon(const std::string& preset) {
  static std::map<std::string, std::unique_ptr<LoadedDaemon>> daemons;
  std::unique_ptr<LoadedDaemon>& d = daemons[preset];
  if (d != nullptr) return *d;
  d = std::make_unique<LoadedDaemon>();
  server::ServerConfig config;
  config.listen = "127.0.0.1:0";
  config.console_listen = "127.0.0.1:0";
  config.db_path = d->dir.File("bench.db");
  config.fabric = "preset:" + preset;
  config.durability = "normal";
  d->server = *server::TopoplaceServer::Start(config, ledger::RealClock());
  client::ClientOptions options;
  options.server = absl::StrCat("127.0.0.1:", d->server->port());
  auto client = *client::TopoplaceClient::Connect(options);
  const char* specs[] = {"tp=8,pp=4,dp=16", "tp=8,pp=8,dp=4", "tp=8,pp=4,dp=64", "tp=8,pp=2,dp=32",
                         "tp=8,pp=8,dp=32"};
  const int64_t gpus = static_cast<int64_t>(d->server->fabric().gpus().size());
  for (int i = 0; d->held < gpus * 6 / 10; ++i) {
    absl::StatusOr<v1::ReserveResponse> r = client->Reserve(specs[i % 5], "", 3600);
    if (!r.ok()) break;
    d->held += r->allocation().gpus_size();
    if (r->allocation().gpus_size() == 2048 && d->large_job.empty()) {
      d->large_job = r->allocation().allocation_id();
    }
  }
  return *d;
}

void Get(benchmark::State& state, const std::string& preset, const std::string& path) {
  LoadedDaemon& d = Daemon(preset);
  httplib::Client http("127.0.0.1", d.server->console_port());
  http.set_keep_alive(true);
  const std::string target = path == "job" ? "/api/v1/jobs/" + d.large_job : path;
  size_t bytes = 0;
  for (auto _ : state) {
    httplib::Result r = http.Get(target.c_str());
    if (!r || r->status != 200) {
      state.SkipWithError("console request failed");
      break;
    }
    bytes = r->body.size();
    benchmark::DoNotOptimize(r->body.data());
  }
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["held_gpus"] = static_cast<double>(d.held);
}

void BM_SnapshotRail28k(benchmark::State& s) { Get(s, "rail-28k", "/api/v1/snapshot"); }
void BM_SnapshotClos3_100k(benchmark::State& s) { Get(s, "clos3-100k", "/api/v1/snapshot"); }
void BM_AllocationsRail28k(benchmark::State& s) { Get(s, "rail-28k", "/api/v1/allocations"); }
void BM_JobPageRail28k2048Gpus(benchmark::State& s) { Get(s, "rail-28k", "job"); }
BENCHMARK(BM_SnapshotRail28k)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SnapshotClos3_100k)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AllocationsRail28k)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_JobPageRail28k2048Gpus)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace topoplace
