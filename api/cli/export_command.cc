// `topoplace export FORMAT --fabric F`: scheduler configuration derived from a fabric.
#include <fstream>
#include <memory>
#include <string>

#include "api/cli/commands.h"
#include "plugins/k8s/topology_export.h"
#include "plugins/slurm/topology_export.h"
#include "topology/base/status_macros.h"
#include "topology/io/fabric_file.h"

namespace topoplace::cli {
namespace {

struct ExportOptions {
  std::string format;
  std::string fabric;
  std::string node_map;
  std::string out;
  std::string kueue_api_version = "v1beta2";
};

absl::StatusOr<std::string> Render(const Fabric& fabric, const ExportOptions& opt) {
  if (opt.format == "k8s-labels") return k8s::RenderNodeLabels(fabric);
  if (opt.format == "kueue-topology") {
    TP_ASSIGN_OR_RETURN(k8s::KueueApiVersion version,
                        k8s::ParseKueueApiVersion(opt.kueue_api_version));
    return k8s::RenderKueueTopology(fabric, version);
  }
  if (opt.format == "volcano-hypernodes") return k8s::RenderVolcanoHyperNodes(fabric);
  slurm::NodeNameMap names;
  if (!opt.node_map.empty()) {
    TP_ASSIGN_OR_RETURN(names, slurm::NodeNameMap::Load(opt.node_map));
  }
  TP_ASSIGN_OR_RETURN(slurm::SlurmTopology topology, slurm::BuildSlurmTopology(fabric, names));
  if (opt.format == "slurm-tree") return slurm::RenderTreeConf(fabric, topology);
  if (opt.format == "slurm-block") return slurm::RenderBlockConf(fabric, topology);
  return slurm::RenderTopologyYaml(fabric, topology);
}

absl::Status RunExport(CliContext& ctx, const ExportOptions& opt) {
  TP_ASSIGN_OR_RETURN(FabricPtr fabric, LoadFabricSpec(opt.fabric));
  TP_ASSIGN_OR_RETURN(std::string text, Render(*fabric, opt));
  if (opt.out.empty()) {
    ctx.out << text;
    return absl::OkStatus();
  }
  std::ofstream out(opt.out, std::ios::trunc);
  out << text;
  out.flush();
  if (!out) return absl::PermissionDeniedError("cannot write '" + opt.out + "'");
  return absl::OkStatus();
}

}  // namespace

void RegisterExportCommand(CLI::App& app, CliContext& ctx) {
  auto opt = std::make_shared<ExportOptions>();
  CLI::App* cmd = app.add_subcommand("export", "Export scheduler topology configuration");
  cmd->add_option("format", opt->format,
                  "slurm-tree (topology.conf, topology/tree), slurm-block (topology.conf, "
                  "topology/block), slurm-yaml (topology.yaml), k8s-labels (Node labels), "
                  "kueue-topology (Kueue Topology), volcano-hypernodes (Volcano HyperNodes)")
      ->required()
      ->check(CLI::IsMember({"slurm-tree", "slurm-block", "slurm-yaml", "k8s-labels",
                             "kueue-topology", "volcano-hypernodes"}));
  cmd->add_option("--fabric", opt->fabric, "Fabric file, or preset:NAME")->required();
  cmd->add_option("--node-map", opt->node_map,
                  "Slurm formats: file of 'FABRIC_HOST SLURM_NODE' lines for hosts whose "
                  "names differ");
  cmd->add_option("--out", opt->out, "Write here instead of stdout");
  cmd->add_option("--kueue-api-version", opt->kueue_api_version,
                  std::string("kueue-topology: the Kueue API version to write: ") +
                      k8s::kKueueApiVersions);
  cmd->callback([&ctx, opt] {
    if (absl::Status s = RunExport(ctx, *opt); !s.ok()) ctx.Fail(s);
  });
}

}  // namespace topoplace::cli
