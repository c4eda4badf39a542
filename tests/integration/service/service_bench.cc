// service_bench: measures the running daemon the way clients see it, on this machine:
// start to serving (per fabric preset), Place latency over gRPC, Reserve latency of a
// 1,024-GPU job end to end, durable commits per second and read queries per second with
// concurrent clients. Starts the real
// topoplaced as a child process on a temp database and prints one line per result.
// With --etcd N the ledger is on an N-member etcd cluster on loopback started here; with
// --failovers K, three replicas on it and the leader SIGKILLed K times.
//
//   service_bench [--fabric preset:rail-28k] [--clients 8] [--seconds 3] [--etcd 3]
//                 [--reserves 100]   (more Reserve calls: a longer phase to profile)
//   service_bench --etcd 3 --failovers 10
#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "client/topoplace_client.h"
#include "tests/integration/etcd/etcd_cluster.h"
#include "tests/integration/service/support/daemon_process.h"
#include "tests/integration/service/support/temp_dir.h"

namespace topoplace::testing {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::unique_ptr<client::TopoplaceClient> Connect(const DaemonProcess& daemon) {
  client::ClientOptions options;
  options.server = daemon.address();
  return *client::TopoplaceClient::Connect(options);
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1))];
}

// Runs `op` from `clients` threads for `seconds`; returns successful ops per second.
template <typename Op>
double Throughput(int clients, double seconds, Op op) {
  std::atomic<int64_t> done{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  const Clock::time_point start = Clock::now();
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      for (int64_t i = 0; !stop.load(); ++i) {
        if (op(c, i)) ++done;
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  for (std::thread& t : threads) t.join();
  return static_cast<double>(done.load()) / Seconds(Clock::now() - start);
}

// Keeps `in_flight` GetAllocation calls outstanding on each of `channels` channels with
// gRPC's callback client API for `seconds`; returns answered calls per second. Unlike
// blocking calls from many threads, this costs the load generator little CPU, so on a
// small machine the figure is the daemon's capacity rather than the client's.
double CallbackReads(const std::string& address, const std::vector<std::string>& ids, int channels,
                     int in_flight, double seconds) {
  struct Call {
    grpc::ClientContext context;
    v1::GetAllocationRequest request;
    v1::Allocation response;
  };
  // Shared with every callback: the last one may still be unwinding (destroying its call
  // and its copy of this pointer) after the wait below returns, so nothing it touches may
  // live on this function's stack (a run crashed in gRPC's thread when it did).
  struct State {
    std::vector<std::unique_ptr<v1::Placement::Stub>> stubs;
    std::vector<std::string> ids;
    std::atomic<int64_t> done{0};
    std::atomic<bool> stop{false};
    absl::Mutex mu;
    int outstanding ABSL_GUARDED_BY(mu) = 0;
  };
  auto state = std::make_shared<State>();
  state->ids = ids;
  for (int c = 0; c < channels; ++c) {
    grpc::ChannelArguments args;
    args.SetInt("channel_id", c);  // distinct args: one TCP connection per channel
    state->stubs.push_back(v1::Placement::NewStub(
        grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args)));
  }
  struct Issuer {
    static void Issue(std::shared_ptr<State> state, v1::Placement::Stub* stub, int64_t i) {
      auto call = std::make_shared<Call>();
      call->request.set_allocation_id(state->ids[static_cast<size_t>(i) % state->ids.size()]);
      Call* raw = call.get();
      stub->async()->GetAllocation(
          &raw->context, &raw->request, &raw->response,
          [state, stub, i, call = std::move(call)](grpc::Status status) mutable {
            if (status.ok()) ++state->done;
            call.reset();  // before anyone may stop waiting
            if (!state->stop.load()) {
              Issue(state, stub, i + 1);
              return;
            }
            absl::MutexLock lock(&state->mu);
            --state->outstanding;
          });
    }
  };
  const Clock::time_point start = Clock::now();
  {
    absl::MutexLock lock(&state->mu);
    state->outstanding = channels * in_flight;
  }
  for (int c = 0; c < channels; ++c) {
    for (int k = 0; k < in_flight; ++k) {
      Issuer::Issue(state, state->stubs[static_cast<size_t>(c)].get(), k * 7919);
    }
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  state->stop = true;
  const double elapsed = Seconds(Clock::now() - start);
  const int64_t answered = state->done.load();
  {
    absl::MutexLock lock(&state->mu);
    state->mu.Await(absl::Condition(
        +[](int* n) { return *n == 0; }, &state->outstanding));
  }
  // The channels are destroyed here, not in a gRPC thread: wait for the callbacks' copies.
  while (state.use_count() > 1) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return static_cast<double>(answered) / elapsed;
}

// Three replicas on `etcd`; `failovers` times: SIGKILL the leader, time until a client's
// Reserve is served again, restart the killed replica. Prints median and worst.
int Failovers(const TempDir& dir, const std::vector<std::string>& store_args, int failovers) {
  std::vector<std::unique_ptr<DaemonProcess>> replicas;
  std::vector<std::string> addresses;
  for (int i = 0; i < 3; ++i) {
    const std::string work = absl::StrCat(dir.path(), "/replica-", i);
    std::filesystem::create_directories(work);
    std::vector<std::string> args = store_args;
    args.insert(args.end(), {"--db", work + "/r.db", "--leader-lease", "2"});
    replicas.push_back(std::make_unique<DaemonProcess>(TopoplacedPath(), args, work));
    if (!replicas.back()->Start().ok()) return 1;
    addresses.push_back(replicas.back()->address());
  }
  client::ClientOptions options;
  options.server = absl::StrJoin(addresses, ",");
  options.timeout = absl::Seconds(5);
  options.failover_wait = absl::Seconds(30);
  auto client = *client::TopoplaceClient::Connect(options);
  std::vector<double> seconds;
  for (int k = 0; k < failovers; ++k) {
    auto before = client->Reserve("tp=1,pp=1,dp=1,gpus_per_node=1", "", 60);
    if (!before.ok()) return 1;
    // The replica that just answered a write is the leader.
    const std::string leader = client->LastAddress();
    auto it = std::find(addresses.begin(), addresses.end(), leader);
    if (it == addresses.end()) return 1;
    const size_t index = static_cast<size_t>(it - addresses.begin());
    const Clock::time_point killed = Clock::now();
    replicas[index]->Kill(SIGKILL);
    auto after = client->Reserve("tp=1,pp=1,dp=1,gpus_per_node=1", "", 60);
    if (!after.ok()) {
      std::fprintf(stderr, "%s\n", after.status().ToString().c_str());
      return 1;
    }
    seconds.push_back(Seconds(Clock::now() - killed));
    std::printf("failover %d: %.2f s (%s killed, %s serves)\n", k + 1, seconds.back(),
                leader.c_str(), client->LastAddress().c_str());
    if (!replicas[index]->Start().ok()) return 1;
    addresses[index] = replicas[index]->address();
    options.server = absl::StrJoin(addresses, ",");
    client = *client::TopoplaceClient::Connect(options);
  }
  std::printf("failover_seconds median %.2f worst %.2f (%d leader SIGKILLs, lease 2 s)\n",
              Percentile(seconds, 0.5), Percentile(seconds, 1.0), failovers);
  return 0;
}

// A second replica on the same etcd (a follower): how long until a change the leader
// acknowledged shows in the follower's answers, and its read latency with `ids` live.
int FollowerReads(const TempDir& dir, const std::vector<std::string>& leader_args,
                  client::TopoplaceClient& leader, const std::vector<std::string>& ids,
                  double seconds) {
  const std::string work = absl::StrCat(dir.path(), "/follower");
  std::filesystem::create_directories(work);
  std::vector<std::string> args = leader_args;
  args[1] = work + "/f.db";  // --db
  DaemonProcess follower(TopoplacedPath(), args, work);
  if (absl::Status s = follower.Start(); !s.ok()) {
    std::fprintf(stderr, "follower: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  auto reader = Connect(follower);
  std::vector<double> visible_ms;
  for (int k = 0; k < 50; ++k) {
    auto r = leader.Reserve("tp=1,pp=1,dp=1,gpus_per_node=1", "", 600);
    if (!r.ok()) {
      std::fprintf(stderr, "reserve: %s\n", std::string(r.status().message()).c_str());
      return 1;
    }
    const std::string id = r->allocation().allocation_id();
    if (!leader.Commit(id, absl::StrCat("follower-bench:", k)).ok()) return 1;
    const Clock::time_point acked = Clock::now();
    // The follower's view (ListAllocations reads it; a GetAllocation of an id the view
    // lacks asks etcd directly).
    const auto listed = [&] {
      auto all = reader->ListAllocations();
      if (!all.ok()) return false;
      for (const v1::Allocation& a : all->allocations()) {
        if (a.allocation_id() == id) return a.state() == v1::ALLOCATION_STATE_COMMITTED;
      }
      return false;
    };
    while (!listed()) {
      if (Seconds(Clock::now() - acked) > 10) return 1;
    }
    visible_ms.push_back(Seconds(Clock::now() - acked) * 1e3);
    if (!leader.Release(id).ok()) return 1;
  }
  std::printf(
      "follower_visibility_ms p50 %.2f p99 %.2f (a leader's acknowledged commit "
      "until a follower's ListAllocations shows it; 50 commits)\n",
      Percentile(visible_ms, 0.5), Percentile(visible_ms, 0.99));
  std::vector<double> read_ms;
  const Clock::time_point start = Clock::now();
  for (int64_t i = 0; Seconds(Clock::now() - start) < seconds; ++i) {
    const Clock::time_point t = Clock::now();
    if (!reader->GetAllocation(ids[static_cast<size_t>(i) % ids.size()]).ok()) return 1;
    read_ms.push_back(Seconds(Clock::now() - t) * 1e3);
  }
  std::printf(
      "follower_read_latency_ms p50 %.3f p99 %.3f (GetAllocation on a follower, %zu "
      "live allocations, %zu sequential calls)\n",
      Percentile(read_ms, 0.5), Percentile(read_ms, 0.99), ids.size() + 0, read_ms.size());
  follower.Kill(SIGTERM);
  return 0;
}

int Main(int argc, char** argv) {
  std::string fabric = "preset:superpod-4su";
  int clients = 8;
  double seconds = 3;
  int etcd_members = 0;
  int failovers = 0;
  int reserves = 100;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--fabric") fabric = argv[i + 1];
    if (flag == "--clients") clients = std::atoi(argv[i + 1]);
    if (flag == "--seconds") seconds = std::atof(argv[i + 1]);
    if (flag == "--etcd") etcd_members = std::atoi(argv[i + 1]);
    if (flag == "--failovers") failovers = std::atoi(argv[i + 1]);
    if (flag == "--reserves") reserves = std::atoi(argv[i + 1]);
  }
  TempDir dir;
  std::vector<std::string> store_args;
  EtcdCluster etcd(dir.path(), std::max(etcd_members, 1));
  if (etcd_members > 0) {
    if (absl::Status s = etcd.Start(); !s.ok()) {
      std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
      return 1;
    }
    store_args = {"--store", absl::StrCat("etcd://", absl::StrJoin(etcd.endpoints(), ","))};
    std::printf("ledger on etcd, %d members on loopback\n", etcd_members);
  }
  if (failovers > 0) return Failovers(dir, store_args, failovers);
  std::vector<std::string> daemon_args = {"--db", dir.File("bench.db"), "--fabric", fabric};
  daemon_args.insert(daemon_args.end(), store_args.begin(), store_args.end());
  DaemonProcess daemon(TopoplacedPath(), daemon_args, dir.path());
  Clock::time_point start = Clock::now();
  if (absl::Status s = daemon.Start(); !s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    return 1;
  }
  auto client = Connect(daemon);
  if (!client->GetFabricSummary().ok()) return 1;
  std::printf("start_to_serving_seconds %.3f (%s, fresh database)\n", Seconds(Clock::now() - start),
              fabric.c_str());

  std::vector<double> place_ms;
  for (int i = 0; i < 200; ++i) {
    Clock::time_point t = Clock::now();
    if (!client->Place("tp=8,pp=4,dp=4", "").ok()) return 1;
    place_ms.push_back(Seconds(Clock::now() - t) * 1e3);
  }
  std::printf("place_latency_ms p50 %.2f p99 %.2f (tp=8,pp=4,dp=4; 200 sequential calls)\n",
              Percentile(place_ms, 0.5), Percentile(place_ms, 0.99));

  // Reserve end to end (placement, ledger write, reply) of a 1,024-GPU job, released
  // after each call so every Reserve sees the same free cluster.
  std::vector<double> reserve_ms;
  for (int i = 0; i < reserves; ++i) {
    Clock::time_point t = Clock::now();
    auto r = client->Reserve("tp=8,pp=8,dp=16", "", 600);
    if (!r.ok()) {
      std::fprintf(stderr, "reserve: %s\n", std::string(r.status().message()).c_str());
      return 1;
    }
    reserve_ms.push_back(Seconds(Clock::now() - t) * 1e3);
    if (!client->Release(r->allocation().allocation_id()).ok()) return 1;
  }
  std::printf(
      "reserve_latency_ms p50 %.2f p99 %.2f (tp=8,pp=8,dp=16: 1,024 GPUs; %d "
      "sequential calls, each released; %s)\n",
      Percentile(reserve_ms, 0.5), Percentile(reserve_ms, 0.99), reserves,
      etcd_members > 0 ? "etcd" : "SQLite synchronous=FULL");

  // Commits: reserve one-GPU jobs up front, then time only the Commit calls.
  std::vector<std::string> ids;
  for (int i = 0; i < 4000; ++i) {
    auto r = client->Reserve("tp=1,pp=1,dp=1,gpus_per_node=1", "", 3600);
    if (!r.ok()) break;
    ids.push_back(r->allocation().allocation_id());
  }
  std::atomic<size_t> next{0};
  std::vector<std::unique_ptr<client::TopoplaceClient>> pool;
  for (int c = 0; c < clients; ++c) pool.push_back(Connect(daemon));
  Clock::time_point commit_start = Clock::now();
  std::atomic<int64_t> committed{0};
  {
    std::vector<std::thread> threads;
    for (int c = 0; c < clients; ++c) {
      threads.emplace_back([&, c] {
        for (size_t i = next++; i < ids.size(); i = next++) {
          if (pool[c]->Commit(ids[i], "bench:" + ids[i]).ok()) ++committed;
        }
      });
    }
    for (std::thread& t : threads) t.join();
  }
  std::printf("durable_commits_per_second %.0f (%lld commits, %d clients, %s)\n",
              static_cast<double>(committed.load()) / Seconds(Clock::now() - commit_start),
              static_cast<long long>(committed.load()), clients,
              etcd_members > 0 ? "etcd transactions" : "SQLite synchronous=FULL");

  double reads = Throughput(clients, seconds, [&](int c, int64_t i) {
    return ids.empty() ? pool[c]->ListAllocations().ok()
                       : pool[c]->GetAllocation(ids[static_cast<size_t>(i) % ids.size()]).ok();
  });
  std::printf("reads_per_second %.0f (GetAllocation, %d blocking client threads)\n", reads,
              clients);
  if (!ids.empty()) {
    double callback_reads = CallbackReads(daemon.address(), ids, 2, 32, seconds);
    std::printf(
        "reads_per_second %.0f (GetAllocation, callback client, 2 channels x 32 in "
        "flight)\n",
        callback_reads);
  }
  if (etcd_members > 0 && !ids.empty()) {
    // Room for the follower test's own reservations (the loop above may have filled the
    // fabric).
    if (!client->Release(ids.back()).ok()) return 1;
    ids.pop_back();
    if (FollowerReads(dir, daemon_args, *client, ids, seconds) != 0) return 1;
  }
  daemon.Kill(SIGTERM);
  return 0;
}

}  // namespace
}  // namespace topoplace::testing

int main(int argc, char** argv) { return topoplace::testing::Main(argc, argv); }
