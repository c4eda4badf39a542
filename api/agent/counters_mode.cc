#include "api/agent/counters_mode.h"

#include <httplib.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "api/agent/counter_report.h"
#include "api/agent/mode_main.h"
#include "api/agent/reporter.h"
#include "base/input_file.h"
#include "base/status_macros.h"
#include "telemetry/counters/node_exporter_counters.h"
#include "telemetry/counters/ufm_counters.h"
#include "telemetry/probe/probe_plan.h"
#include "topology/io/fabric_file.h"

namespace topoplace::agent {
namespace {

struct CountersModeOptions {
  std::string server;
  std::string node_exporter;  // URL or file
  std::string host;
  std::string ufm;  // URL or file
  std::string guid_map;
  std::string fabric;  // optional: drop entries it does not name
  std::string reporter;
  int interval_ms = 10000;
  int rounds = 0;  // 0: until a signal
};

// A UFM message for 100,000 ports is about 100 MB (about 1 KB a record).
constexpr size_t kMaxSourceBytes = size_t{256} << 20;

// The body at `location`: GET of an http:// URL (200 only), else the file's text.
absl::StatusOr<std::string> ReadSource(const std::string& location) {
  absl::string_view rest = location;
  if (!absl::ConsumePrefix(&rest, "http://")) {
    return ReadInputFile(location, kMaxSourceBytes, "counter source");
  }
  const size_t slash = rest.find('/');
  const std::string authority(rest.substr(0, slash));
  const std::string path = slash == absl::string_view::npos ? "/" : std::string(rest.substr(slash));
  const size_t colon = authority.rfind(':');
  int port = 80;
  if (colon != std::string::npos &&
      (!absl::SimpleAtoi(authority.substr(colon + 1), &port) || port < 1 || port > 65535)) {
    return absl::InvalidArgumentError(absl::StrCat(location, ": bad port in the URL"));
  }
  httplib::Client http(authority.substr(0, colon), port);
  http.set_connection_timeout(5);
  http.set_read_timeout(10);
  httplib::Result r = http.Get(path);
  if (!r) {
    return absl::UnavailableError(absl::StrCat(location, ": ", httplib::to_string(r.error())));
  }
  if (r->status != 200) {
    return absl::UnavailableError(absl::StrCat(location, ": HTTP ", r->status));
  }
  return r->body;
}

// Reads the round's counters into a report; `skipped` collects what was left out, by why.
class CounterSource {
 public:
  static absl::StatusOr<CounterSource> Create(const CountersModeOptions& opt) {
    CounterSource s(opt);
    if (!opt.guid_map.empty()) {
      TP_ASSIGN_OR_RETURN(std::string text,
                          ReadInputFile(opt.guid_map, kMaxSourceBytes, "GUID map"));
      TP_ASSIGN_OR_RETURN(s.guids_, telemetry::ParseGuidMap(text, opt.guid_map));
    }
    if (!opt.fabric.empty()) {
      TP_ASSIGN_OR_RETURN(s.fabric_, LoadFabricSpec(opt.fabric));
    }
    return s;
  }

  absl::StatusOr<v1::ReportPortCountersRequest> Read(std::vector<std::string>& skipped) const {
    v1::ReportPortCountersRequest request;
    request.set_reporter(opt_.reporter);
    const absl::Time now = absl::Now();
    if (!opt_.node_exporter.empty()) {
      TP_ASSIGN_OR_RETURN(std::string text, ReadSource(opt_.node_exporter));
      TP_ASSIGN_OR_RETURN(std::vector<telemetry::PortCounterSet> ports,
                          telemetry::ParseNodeExporterInfiniband(text, opt_.node_exporter));
      for (const telemetry::PortCounterSet& p : ports) {
        const std::string endpoint = absl::StrCat(opt_.host, "/", p.device);
        if (p.port != 1) {
          skipped.push_back(absl::StrCat(endpoint, " port ", p.port, " (only port 1 is the NIC)"));
        } else {
          Add(endpoint, 0, p, now, request, skipped);
        }
      }
      return request;
    }
    TP_ASSIGN_OR_RETURN(std::string text, ReadSource(opt_.ufm));
    TP_ASSIGN_OR_RETURN(std::vector<telemetry::UfmPort> ports,
                        telemetry::ParseUfmTelemetry(text, opt_.ufm));
    for (const telemetry::UfmPort& p : ports) {
      std::optional<std::string> name = telemetry::NameOf(guids_, p);
      if (!name) {
        skipped.push_back(absl::StrCat(p.counters.device, " port ", p.counters.port, " (not in ",
                                       opt_.guid_map, ")"));
        continue;
      }
      const bool nic = absl::StrContains(*name, '/');
      Add(*name, nic ? 0 : p.counters.port, p.counters, now, request, skipped);
    }
    return request;
  }

 private:
  explicit CounterSource(const CountersModeOptions& opt) : opt_(opt) {}

  void Add(const std::string& endpoint, int port, const telemetry::PortCounterSet& set,
           absl::Time now, v1::ReportPortCountersRequest& request,
           std::vector<std::string>& skipped) const {
    if (fabric_ && !fabric_->FindNic(endpoint) && !fabric_->FindSwitch(endpoint)) {
      skipped.push_back(absl::StrCat(endpoint, " (no NIC or switch of the fabric)"));
      return;
    }
    AddPortCounters(endpoint, port, telemetry::Summarise(set), now, request);
  }

  CountersModeOptions opt_;
  telemetry::GuidMap guids_;
  FabricPtr fabric_;
};

absl::Status CheckOptions(CountersModeOptions& opt) {
  if (opt.node_exporter.empty() == opt.ufm.empty()) {
    return absl::InvalidArgumentError("expected exactly one of --node-exporter and --ufm");
  }
  if (!opt.node_exporter.empty() && opt.host.empty()) {
    return absl::InvalidArgumentError("--node-exporter needs --host-name (this host's name)");
  }
  if (!opt.ufm.empty() && opt.guid_map.empty()) {
    return absl::InvalidArgumentError("--ufm needs --guid-map (GUID to fabric names)");
  }
  if (opt.interval_ms < absl::ToInt64Milliseconds(telemetry::kMinProbeInterval)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--interval-ms: expected at least ",
        absl::ToInt64Milliseconds(telemetry::kMinProbeInterval), ", got ", opt.interval_ms));
  }
  if (opt.reporter.empty()) opt.reporter = opt.ufm.empty() ? opt.host : "ufm";
  return absl::OkStatus();
}

absl::Status Run(CountersModeOptions opt) {
  TP_RETURN_IF_ERROR(CheckOptions(opt));
  TP_ASSIGN_OR_RETURN(const CounterSource source, CounterSource::Create(opt));
  TP_ASSIGN_OR_RETURN(std::unique_ptr<Reporter> reporter, Reporter::Connect(opt.server));
  for (int round = 0; !StopRequested(); ++round) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::string> skipped;
    absl::StatusOr<v1::ReportPortCountersRequest> report = source.Read(skipped);
    if (!report.ok() && round == 0) return report.status();
    if (!report.ok()) {
      std::cerr << "topoplace-agent: counters round skipped: " << report.status().message()
                << std::endl;
    } else {
      // What is left out is the same every round: said once.
      if (round == 0 && !skipped.empty()) {
        std::cerr << "topoplace-agent: left out: " << absl::StrJoin(skipped, ", ") << std::endl;
      }
      if (report->counters_size() > 0) {
        if (absl::Status s = reporter->Counters(*report); !s.ok()) {
          std::cerr << "topoplace-agent: counter report rejected: " << s.message() << std::endl;
        }
      }
    }
    if (opt.rounds > 0 && round + 1 >= opt.rounds) break;
    SleepUntil(start + std::chrono::milliseconds(opt.interval_ms));
  }
  return absl::OkStatus();
}

}  // namespace

int CountersMain(int argc, char** argv) {
  CountersModeOptions opt;
  CLI::App app{"topoplace-agent counters: port counters from node_exporter or UFM Telemetry"};
  app.add_option("--server", opt.server, "topoplaced address host:port")->required();
  app.add_option("--node-exporter", opt.node_exporter,
                 "node_exporter's /metrics (http://HOST:9100/metrics) or a file of it");
  app.add_option("--host-name", opt.host, "With --node-exporter: this host's name in the fabric");
  app.add_option("--ufm", opt.ufm, "A UFM Telemetry JSON message (URL or file)");
  app.add_option("--guid-map", opt.guid_map, "With --ufm: file of 'GUID host/nic|switch' lines");
  app.add_option("--fabric", opt.fabric, "Fabric file or preset:NAME: leave out what it lacks");
  app.add_option("--reporter", opt.reporter, "Reporter name (default: the host, or 'ufm')");
  app.add_option("--interval-ms", opt.interval_ms, "Milliseconds between readings");
  app.add_option("--rounds", opt.rounds, "Stop after this many readings (0: until a signal)");
  return RunMode(app, argc, argv, [&] { return Run(opt); });
}

}  // namespace topoplace::agent
