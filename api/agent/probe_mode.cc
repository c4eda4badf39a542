#include "api/agent/probe_mode.h"

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/agent/counter_report.h"
#include "api/agent/mode_main.h"
#include "api/agent/peer_map.h"
#include "api/agent/reporter.h"
#include "base/status_macros.h"
#include "client/rpc_status.h"
#include "client/topoplace_client.h"
#include "telemetry/counters/sysfs_counters.h"
#include "telemetry/probe/probe_plan.h"
#include "telemetry/probe/tcp_transport.h"
#include "telemetry/probe/verbs_transport.h"
#include "topology/discovery/read_file.h"
#include "topology/io/fabric_file.h"
#include "topoplace/v1/telemetry.grpc.pb.h"

namespace topoplace::agent {
namespace {

namespace v1 = ::topoplace::v1;

struct ProbeModeOptions {
  std::string server;
  std::string fabric;
  std::string host;
  std::string listen = "0.0.0.0";
  int port = 7471;
  std::string peers_file;
  std::string sysfs_root = "/";
  bool no_counters = false;
  int interval_ms = 10000;
  int rounds = 0;  // 0: until a signal
  int budget = 16;
  int spine_samples = 1;
  int latency_iterations = 20;
  int bandwidth_ms = 100;
  int timeout_ms = 1000;
  std::string transport = "auto";  // auto: RDMA where a device exists, else TCP
  std::string rdma_device;         // empty: the first device
};

// The probe transport `opt.transport` asks for. "auto" falls back to TCP when this host
// has no RDMA device (or the build has no libibverbs).
absl::StatusOr<telemetry::ProbeTransportPtr> MakeTransport(const ProbeModeOptions& opt) {
  if (opt.transport == "tcp") return telemetry::NewTcpTransport();
  if (opt.transport != "rdma" && opt.transport != "auto") {
    return absl::InvalidArgumentError(
        absl::StrCat("--transport: expected auto, tcp or rdma, got '", opt.transport, "'"));
  }
  absl::StatusOr<telemetry::ProbeTransportPtr> rdma =
      telemetry::NewVerbsTransport(opt.rdma_device, opt.sysfs_root);
  if (rdma.ok() || opt.transport == "rdma") return rdma;
  std::cerr << "topoplace-agent: " << rdma.status().message() << "; probing over TCP\n";
  return telemetry::NewTcpTransport();
}

// This host's NIC counters: InfiniBand port 1 when the NIC is an RDMA device, else the
// net device of that name. A garbage counter file skips that NIC with a message.
v1::ReportPortCountersRequest ReadCounters(const Fabric& fabric, HostId host,
                                           const std::string& root) {
  v1::ReportPortCountersRequest request;
  request.set_reporter(fabric.hosts()[host].name);
  for (NicId n : fabric.hosts()[host].nics) {
    const std::string& name = fabric.nics()[n].name;
    std::error_code error;
    const bool ib = std::filesystem::is_directory(
        std::filesystem::path(root) / "sys/class/infiniband" / name / "ports/1", error);
    absl::StatusOr<telemetry::PortCounterSet> set =
        ib ? telemetry::ReadInfinibandPort(root, name, 1) : telemetry::ReadNetDevice(root, name);
    if (!set.ok()) {
      std::cerr << "topoplace-agent: counters of " << name << " skipped: " << set.status().message()
                << "\n";
      continue;
    }
    AddPortCounters(fabric.EndpointName({Endpoint::Kind::kNic, n}), 0, telemetry::Summarise(*set),
                    absl::Now(), request);
  }
  return request;
}

absl::Status Run(const ProbeModeOptions& opt) {
  TP_ASSIGN_OR_RETURN(FabricPtr fabric, LoadFabricSpec(opt.fabric));
  std::optional<HostId> host = fabric->FindHost(opt.host);
  if (!host) {
    return absl::InvalidArgumentError(
        absl::StrCat("--host-name: no host '", opt.host, "' in the fabric '", opt.fabric, "'"));
  }
  TP_ASSIGN_OR_RETURN(std::string peers_text, discovery::ReadWholeFile(opt.peers_file));
  TP_ASSIGN_OR_RETURN(PeerMap peers, ParsePeerMap(peers_text, opt.peers_file, opt.port));
  telemetry::ProbePlanOptions plan_options{.spine_samples = opt.spine_samples,
                                           .max_probes_per_round = opt.budget,
                                           .interval = absl::Milliseconds(opt.interval_ms)};
  TP_RETURN_IF_ERROR(telemetry::ValidatePlanOptions(plan_options));
  telemetry::ProbeOptions probe_options;
  probe_options.latency_iterations = opt.latency_iterations;
  probe_options.bandwidth_duration = absl::Milliseconds(opt.bandwidth_ms);
  probe_options.timeout = absl::Milliseconds(opt.timeout_ms);
  TP_RETURN_IF_ERROR(telemetry::ValidateProbeOptions(probe_options));

  TP_ASSIGN_OR_RETURN(telemetry::ProbeTransportPtr transport, MakeTransport(opt));
  TP_ASSIGN_OR_RETURN(telemetry::ProbeResponderPtr responder,
                      transport->Listen(opt.listen, opt.port));
  TP_ASSIGN_OR_RETURN(std::unique_ptr<Reporter> reporter, Reporter::Connect(opt.server));
  std::cerr << "topoplace-agent: probing as " << opt.host << " over " << transport->name()
            << ", responder on " << opt.listen << ":" << responder->port() << std::endl;

  for (uint64_t round = 0; !StopRequested(); ++round) {
    const auto start = std::chrono::steady_clock::now();
    v1::ReportProbeResultsRequest report;
    report.set_reporter(opt.host);
    for (const telemetry::PlannedProbe& p :
         telemetry::PlanProbes(*fabric, *host, plan_options, round)) {
      const std::string target = fabric->EndpointName({Endpoint::Kind::kNic, p.remote});
      auto peer = peers.find(target);
      if (peer == peers.end()) continue;  // no responder known for that NIC
      absl::StatusOr<telemetry::ProbeMeasurement> m = transport->Probe(peer->second, probe_options);
      v1::ProbeResult* r = report.add_results();
      r->set_source(fabric->EndpointName({Endpoint::Kind::kNic, p.local}));
      r->set_target(target);
      r->set_reachable(m.ok());
      r->set_transport(std::string(transport->name()));
      r->set_measured_unix_ms(absl::ToUnixMillis(absl::Now()));
      if (m.ok()) {
        r->set_latency_us(m->latency_us);
        r->set_bandwidth_gbps(m->bandwidth_gbps);
      }
    }
    if (report.results_size() > 0) {
      if (absl::Status s = reporter->Probes(report); !s.ok()) {
        std::cerr << "topoplace-agent: probe report rejected: " << s.message() << std::endl;
      }
    }
    if (!opt.no_counters) {
      v1::ReportPortCountersRequest counters = ReadCounters(*fabric, *host, opt.sysfs_root);
      if (counters.counters_size() > 0) {
        if (absl::Status s = reporter->Counters(counters); !s.ok()) {
          std::cerr << "topoplace-agent: counter report rejected: " << s.message() << std::endl;
        }
      }
    }
    if (opt.rounds > 0 && round + 1 >= static_cast<uint64_t>(opt.rounds)) break;
    SleepUntil(start + std::chrono::milliseconds(opt.interval_ms));
  }
  return absl::OkStatus();
}

}  // namespace

int ProbeMain(int argc, char** argv) {
  ProbeModeOptions opt;
  CLI::App app{"topoplace-agent probe: probe peers and report link measurements"};
  app.add_option("--server", opt.server, "topoplaced address host:port")->required();
  app.add_option("--fabric", opt.fabric, "Fabric file or preset:NAME (for the probe plan)")
      ->required();
  app.add_option("--host-name", opt.host, "This host's name in the fabric")->required();
  app.add_option("--peers", opt.peers_file, "File of 'host/nic ADDRESS[:PORT]' lines")->required();
  app.add_option("--listen", opt.listen, "Address the probe responder binds");
  app.add_option("--port", opt.port, "Responder port (and the peers' default port)");
  app.add_option("--sysfs-root", opt.sysfs_root, "Root holding sys/ for port counters");
  app.add_flag("--no-counters", opt.no_counters, "Do not report port counters");
  app.add_option("--interval-ms", opt.interval_ms, "Milliseconds between probe rounds");
  app.add_option("--rounds", opt.rounds, "Stop after this many rounds (0: until a signal)");
  app.add_option("--budget", opt.budget, "Probes per round at most");
  app.add_option("--spine-samples", opt.spine_samples, "Cross-spine probes per rail per round");
  app.add_option("--latency-iterations", opt.latency_iterations, "Ping-pongs per latency probe");
  app.add_option("--bandwidth-ms", opt.bandwidth_ms,
                 "Milliseconds of streaming per bandwidth probe");
  app.add_option("--timeout-ms", opt.timeout_ms, "Per-probe connect/read timeout");
  app.add_option("--transport", opt.transport, "auto (RDMA if a device exists), tcp or rdma");
  app.add_option("--rdma-device", opt.rdma_device, "RDMA device for --transport rdma/auto");
  return RunMode(app, argc, argv, [&] { return Run(opt); });
}

}  // namespace topoplace::agent
