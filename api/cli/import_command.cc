// `topoplace fabric import`: merge discovery sources into one fabric, print its summary
// (the same as `fabric show`, warnings included) and optionally save it.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/cli/commands.h"
#include "base/status_macros.h"
#include "client/topoplace_client.h"
#include "topology/discovery/fabric_import.h"
#include "topology/io/fabric_file.h"
#include "topology/model/fabric_summary.h"

namespace topoplace::cli {
namespace {

struct ImportOptions {
  discovery::ImportSources sources;
  std::string name = "imported";
  std::string out;
  std::string server;  // topoplaced whose stored host reports join the merge
  bool json = false;
};

// Adds every host report stored in the daemon at `server` to `sources`.
absl::Status AddServerReports(const std::string& server, discovery::ImportSources& sources) {
  TP_ASSIGN_OR_RETURN(const client::ClientOptions options, client::ClientOptionsFromEnv(server));
  TP_ASSIGN_OR_RETURN(const std::unique_ptr<client::TopoplaceClient> client,
                      client::TopoplaceClient::Connect(options));
  TP_ASSIGN_OR_RETURN(const client::v1::ListHostReportsResponse reports, client->ListHostReports());
  for (const client::v1::HostReport& r : reports.reports()) {
    sources.agent_report_texts.push_back(discovery::AgentReportText{
        .origin = absl::StrCat("topoplaced ", server, ": host ", r.host()),
        .json = r.report_json()});
  }
  return absl::OkStatus();
}

absl::Status RunImport(CliContext& ctx, const ImportOptions& opt) {
  discovery::ImportSources sources = opt.sources;
  const std::string& server = opt.server.empty() ? ctx.server : opt.server;
  if (!server.empty()) TP_RETURN_IF_ERROR(AddServerReports(server, sources));
  TP_ASSIGN_OR_RETURN(const FabricPtr fabric, discovery::ImportFabric(sources, opt.name));
  if (!opt.out.empty()) TP_RETURN_IF_ERROR(SaveFabricFile(*fabric, opt.out));
  ctx.out << (opt.json ? FabricSummaryJson(*fabric) : FabricSummaryTable(*fabric));
  return absl::OkStatus();
}

}  // namespace

void RegisterImportCommand(CLI::App& fabric, CliContext& ctx) {
  auto opt = std::make_shared<ImportOptions>();
  CLI::App* cmd = fabric.add_subcommand(
      "import",
      "Build a fabric from ibnetdiscover, LLDP, agent reports (files or a daemon's) and a spec "
      "file");
  cmd->add_option("--ibnetdiscover", opt->sources.ibnetdiscover, "ibnetdiscover dump file(s)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--lldp", opt->sources.lldp,
                  "lldpcli -f json0 neighbor file(s), or directories of them");
  cmd->add_option("--agent-report", opt->sources.agent_reports,
                  "topoplace-agent --once --json output file(s)");
  cmd->add_option("--k8s-nodes", opt->sources.k8s_nodes,
                  "Kubernetes NodeList file(s) (kubectl get nodes -o json): each node's "
                  "nvidia.com/gpu.clique label is its NVLink domain, unless its GPUs say otherwise")
      ->check(CLI::ExistingFile);
  cmd->add_option("--k8s-resource-slices", opt->sources.k8s_resource_slices,
                  "Kubernetes ResourceSliceList file(s) (kubectl get resourceslices -o json) of "
                  "NVIDIA's GPU and DraNet's RDMA NIC DRA drivers: GPUs, RDMA NICs and which "
                  "share a PCIe root, unless a host's own report says otherwise")
      ->check(CLI::ExistingFile);
  cmd->add_option("--spec", opt->sources.spec,
                  "Fabric spec file (or preset:NAME) describing what cannot be discovered");
  cmd->add_option("--server", opt->server,
                  "Also merge the host reports stored in the topoplaced at ADDR (host:port)");
  cmd->add_option("--name", opt->name, "Name of the merged fabric");
  cmd->add_option("--out", opt->out, "Save the merged fabric file here");
  cmd->add_flag("--json", opt->json, "Print stable JSON instead of a table");
  cmd->callback([&ctx, opt] {
    if (absl::Status s = RunImport(ctx, *opt); !s.ok()) ctx.Fail(s);
  });
}

}  // namespace topoplace::cli
