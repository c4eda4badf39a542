// topoplace-agent: collects this host's discovery facts (RDMA devices, NICs, GPUs and
// their PCIe affinity, NVLink domain, LLDP neighbors) and reports them: `--once --server
// ADDR` sends the report to topoplaced (ReportHost); `--once --json` prints it for
// `topoplace fabric import --agent-report`.
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <array>
#include <cstdio>
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "api/agent/counters_mode.h"
#include "api/agent/probe_mode.h"
#include "base/status_macros.h"
#include "client/topoplace_client.h"
#include "topology/discovery/agent_report.h"
#include "topology/discovery/host_discovery.h"
#include "topology/discovery/lldp.h"
#include "topology/discovery/read_file.h"
#include "topology/discovery/verbs_devices.h"

namespace topoplace::agent {
namespace {

using discovery::AgentReport;

struct Options {
  bool once = false;
  bool json = false;
  std::string sysfs_root = "/";
  std::string host_name;
  std::string lldpcli = "lldpcli";
  std::string lldp_socket;
  std::string lldp_file;  // recorded lldpcli output instead of running lldpcli
  bool no_lldp = false;
  std::string server;  // topoplaced to send the report to (host:port)
  // `nvidia-smi -q` output for the NVLink domain: "auto" runs nvidia-smi when it is on
  // PATH, "none" skips it, anything else is a file of recorded output.
  std::string nvidia_smi = "auto";
  discovery::HostDiscoveryOptions discovery;
};

// Runs a shell command and returns its stdout; Unavailable if it exits non-zero.
absl::StatusOr<std::string> RunCommand(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return absl::UnavailableError(absl::StrCat("cannot run ", command));
  std::string out;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) out.append(buffer.data(), n);
  const int status = pclose(pipe);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::UnavailableError(absl::StrCat("'", command, "' failed (status ", status, ")"));
  }
  return out;
}

// LLDP neighbors of this host; a missing lldpd is a warning in the report, not a failure.
absl::Status CollectLldp(const Options& opt, AgentReport& report) {
  if (opt.no_lldp) return absl::OkStatus();
  std::string text;
  std::string source = opt.lldp_file;
  if (!opt.lldp_file.empty()) {
    TP_ASSIGN_OR_RETURN(text, discovery::ReadWholeFile(opt.lldp_file));
  } else {
    std::string command = opt.lldpcli;
    if (!opt.lldp_socket.empty()) absl::StrAppend(&command, " -u '", opt.lldp_socket, "'");
    absl::StrAppend(&command, " -f json0 show neighbors details 2>/dev/null");
    absl::StatusOr<std::string> out = RunCommand(command);
    if (!out.ok()) {
      report.warnings.push_back(absl::StrCat("no LLDP neighbors: ", out.status().message()));
      return absl::OkStatus();
    }
    text = *std::move(out);
    source = "lldpcli";
  }
  TP_ASSIGN_OR_RETURN(discovery::LldpView view,
                      discovery::ParseLldpNeighbors(text, source, report.host));
  report.lldp = std::move(view.neighbors);
  return absl::OkStatus();
}

// The text `nvidia-smi -q` prints here, as --nvidia-smi asks; empty when there is none (no
// NVIDIA driver, or "none").
absl::StatusOr<std::string> NvidiaSmiQuery(const std::string& source) {
  if (source == "none") return std::string();
  if (source == "auto") {
    if (system("command -v nvidia-smi >/dev/null 2>&1") != 0) return std::string();
    absl::StatusOr<std::string> out = RunCommand("nvidia-smi -q");
    return out.ok() ? *out : std::string();  // a GPU-less host's nvidia-smi fails: no domain
  }
  return discovery::ReadWholeFile(source);
}

absl::StatusOr<AgentReport> Collect(const Options& opt) {
  const discovery::SysfsEnvPtr env = discovery::NewDiskSysfsEnv(opt.sysfs_root);
  discovery::HostDiscoveryOptions discovery_options = opt.discovery;
  TP_ASSIGN_OR_RETURN(discovery_options.nvidia_smi_q, NvidiaSmiQuery(opt.nvidia_smi));
  TP_ASSIGN_OR_RETURN(AgentReport report, discovery::DiscoverHost(*env, discovery_options));
  report.host = opt.host_name;
  if (report.host.empty()) {
    std::array<char, 256> name{};
    if (gethostname(name.data(), name.size() - 1) != 0) {
      return absl::InternalError("gethostname failed; pass --host-name");
    }
    report.host = name.data();
  }
  // Verbs sees the devices sysfs lists; an empty list here (no RDMA subsystem) is normal.
  TP_ASSIGN_OR_RETURN(const std::vector<discovery::VerbsDevice> verbs,
                      discovery::ListVerbsDevices());
  for (const discovery::VerbsDevice& device : verbs) {
    bool known = false;
    for (const discovery::AgentNic& nic : report.nics)
      known = known || nic.rdma_device == device.name;
    if (!known) {
      report.warnings.push_back(absl::StrCat("libibverbs lists ", device.name, " that sysfs under ",
                                             opt.sysfs_root, " does not"));
    }
  }
  TP_RETURN_IF_ERROR(CollectLldp(opt, report));
  return report;
}

// Sends `report` to the daemon at `server` (credentials from the environment).
absl::Status SendReport(const std::string& server, const AgentReport& report) {
  TP_ASSIGN_OR_RETURN(const client::ClientOptions options, client::ClientOptionsFromEnv(server));
  TP_ASSIGN_OR_RETURN(const std::unique_ptr<client::TopoplaceClient> client,
                      client::TopoplaceClient::Connect(options));
  TP_ASSIGN_OR_RETURN(const client::v1::ReportHostResponse response,
                      client->ReportHost(discovery::AgentReportToJson(report)));
  std::cerr << "topoplace-agent: reported " << response.host() << " to " << server
            << (response.replaced() ? " (replaced the earlier report)" : "") << "\n";
  return absl::OkStatus();
}

void PrintTable(const AgentReport& report) {
  std::cout << "host " << report.host << "\n";
  for (const discovery::AgentNic& nic : report.nics) {
    std::cout << "  nic " << nic.name << "  " << nic.speed_gbps << " Gb/s  " << nic.state
              << (nic.pci.empty() ? "" : "  pci " + nic.pci) << "\n";
  }
  for (const discovery::AgentGpu& gpu : report.gpus) {
    std::cout << "  gpu " << gpu.index << "  pci " << gpu.pci << "  numa " << gpu.numa << "  nic "
              << (gpu.nic.empty() ? "-" : gpu.nic) << "\n";
  }
  for (const discovery::LldpNeighbor& n : report.lldp) {
    std::cout << "  lldp " << n.local_port << " -> " << n.system_name << " " << n.port << "\n";
  }
  for (const std::string& w : report.warnings) std::cout << "  warning: " << w << "\n";
}

}  // namespace
}  // namespace topoplace::agent

int main(int argc, char** argv) {
  // `topoplace-agent probe ...`: link probes and counters (api/agent/probe_mode.h).
  if (argc > 1 && std::string(argv[1]) == "probe") {
    return topoplace::agent::ProbeMain(argc - 1, argv + 1);
  }
  // `topoplace-agent counters ...`: counters from node_exporter or UFM (counters_mode.h).
  if (argc > 1 && std::string(argv[1]) == "counters") {
    return topoplace::agent::CountersMain(argc - 1, argv + 1);
  }
  using topoplace::agent::Options;
  Options opt;
  CLI::App app{"topoplace-agent: report this host's GPUs, NICs and LLDP neighbors"};
  app.add_flag("--once", opt.once, "Collect once, print the report and exit");
  app.add_flag("--json", opt.json, "Print the report as JSON (for fabric import)");
  app.add_option("--sysfs-root", opt.sysfs_root, "Root holding sys/ (a recorded tree in tests)");
  app.add_option("--host-name", opt.host_name, "Host name to report (default: gethostname)");
  app.add_option("--lldpcli", opt.lldpcli, "lldpcli binary");
  app.add_option("--lldp-socket", opt.lldp_socket, "lldpd control socket (lldpcli -u)");
  app.add_option("--lldp-file", opt.lldp_file, "Read recorded lldpcli -f json0 output instead");
  app.add_flag("--no-lldp", opt.no_lldp, "Do not collect LLDP neighbors");
  app.add_option("--server", opt.server,
                 "Send the report to the topoplaced at ADDR (host:port); with --once");
  app.add_option("--netdev", opt.discovery.netdev_pattern,
                 "Also report virtual interfaces matching this pattern (e.g. 'eth*')");
  app.add_option("--nvlink-domain-file", opt.discovery.nvlink_domain_file,
                 "File (under the sysfs root) holding this host's NVLink domain");
  app.add_option("--nvidia-smi", opt.nvidia_smi,
                 "NVLink domain from the GPUs' fabric identity: auto (run nvidia-smi -q if "
                 "present), none, or a file of recorded nvidia-smi -q output");
  CLI11_PARSE(app, argc, argv);
  if (!opt.once) {
    std::cerr << "topoplace-agent: only --once is implemented (with --json and/or --server)\n";
    return 2;
  }
  absl::StatusOr<topoplace::discovery::AgentReport> report = topoplace::agent::Collect(opt);
  if (!report.ok()) {
    std::cerr << "topoplace-agent: " << report.status().message() << "\n";
    return report.status().code() == absl::StatusCode::kInvalidArgument ? 2 : 1;
  }
  if (!opt.server.empty()) {
    if (absl::Status s = topoplace::agent::SendReport(opt.server, *report); !s.ok()) {
      std::cerr << "topoplace-agent: " << s.message() << "\n";
      return s.code() == absl::StatusCode::kInvalidArgument ? 2 : 1;
    }
    if (!opt.json) return 0;
  }
  if (opt.json) {
    std::cout << topoplace::discovery::AgentReportToJson(*report);
  } else {
    topoplace::agent::PrintTable(*report);
  }
  return 0;
}
