// `topoplace export FORMAT --fabric F`: scheduler configuration derived from a fabric.
#include <algorithm>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "api/cli/commands.h"
#include "base/status_macros.h"
#include "plugins/common/node_list.h"
#include "plugins/k8s/topology_export.h"
#include "plugins/slurm/hostlist.h"
#include "plugins/slurm/topology_export.h"
#include "topology/io/fabric_file.h"

namespace topoplace::cli {
namespace {

struct ExportOptions {
  std::string format;
  std::string fabric;
  std::string node_map;
  std::string nodes;
  std::string out;
  std::string kueue_api_version = "v1beta2";
  int block_base = 0;
  bool topograph_legacy_labels = false;
};

// The hosts an export covers: every host in a block, or those the operator's node list
// names (by fabric name or by mapped Slurm node name); what is left out goes to `notes`.
struct Scope {
  plugins::HostFilter keep;
  std::vector<std::string> notes;
};

absl::StatusOr<Scope> ExportScope(const Fabric& fabric, const ExportOptions& opt,
                                  const plugins::NodeNameMap& names) {
  Scope scope;
  if (!fabric.unattributed_nics().empty()) {
    scope.notes.push_back(absl::StrCat(fabric.unattributed_nics().size(),
                                       " unattributed HCAs (in no host; see `fabric show`) are "
                                       "not exported"));
  }
  if (opt.nodes.empty()) return scope;
  TP_ASSIGN_OR_RETURN(const std::vector<std::string> listed, plugins::LoadNodeList(opt.nodes));
  const absl::flat_hash_set<std::string> wanted(listed.begin(), listed.end());
  auto kept = std::make_shared<std::vector<bool>>(fabric.hosts().size(), false);
  std::vector<std::string> left_out;
  absl::flat_hash_set<std::string> known;
  for (size_t h = 0; h < fabric.hosts().size(); ++h) {
    const std::string& host = fabric.hosts()[h].name;
    const std::string node = names.NodeName(host);
    known.insert(host);
    known.insert(node);
    (*kept)[h] = wanted.contains(host) || wanted.contains(node);
    if (!(*kept)[h]) left_out.push_back(node);
  }
  std::vector<std::string> unknown;
  for (const std::string& name : wanted) {
    if (!known.contains(name)) unknown.push_back(name);
  }
  std::sort(unknown.begin(), unknown.end());
  // Hardening round four, finding 8: a list naming no host of the fabric exported nothing
  // and exited 1, as if topoplace had failed; it is the input that is wrong.
  if (left_out.size() == fabric.hosts().size()) {
    const std::vector<std::string> some(unknown.begin(),
                                        unknown.begin() + std::min<size_t>(unknown.size(), 8));
    return absl::InvalidArgumentError(absl::StrCat(
        opt.nodes, ": none of its ", wanted.size(), " names is a host of fabric '", fabric.name(),
        "' (by fabric name or mapped node name), e.g. ", slurm::CompressHostlist(some)));
  }
  if (!left_out.empty()) {
    scope.notes.push_back(absl::StrCat(left_out.size(), " fabric hosts not in ", opt.nodes,
                                       " are left out: ", slurm::CompressHostlist(left_out)));
  }
  if (!unknown.empty()) {
    scope.notes.push_back(
        absl::StrCat(unknown.size(), " names in ", opt.nodes,
                     " are no host of the fabric: ", slurm::CompressHostlist(unknown)));
  }
  scope.keep = [kept](HostId h) { return (*kept)[h]; };
  return scope;
}

absl::StatusOr<std::string> Render(const Fabric& fabric, const ExportOptions& opt,
                                   const plugins::NodeNameMap& names, Scope& scope) {
  if (opt.format == "k8s-labels") {
    return k8s::RenderNodeLabels(fabric, scope.keep,
                                 {.topograph_legacy_labels = opt.topograph_legacy_labels});
  }
  if (opt.format == "kueue-topology") {
    TP_ASSIGN_OR_RETURN(k8s::KueueApiVersion version,
                        k8s::ParseKueueApiVersion(opt.kueue_api_version));
    return k8s::RenderKueueTopology(fabric, version);
  }
  if (opt.format == "volcano-hypernodes") return k8s::RenderVolcanoHyperNodes(fabric, scope.keep);
  if (opt.format == "kai-topology") return k8s::RenderKaiTopology(fabric);
  TP_ASSIGN_OR_RETURN(
      slurm::SlurmTopology topology,
      slurm::BuildSlurmTopology(fabric, names, scope.keep, {.base_nodes = opt.block_base}));
  for (const std::string& w : topology.warnings) scope.notes.push_back(w);
  if (opt.format == "slurm-tree") return slurm::RenderTreeConf(fabric, topology);
  if (opt.format == "slurm-block") return slurm::RenderBlockConf(fabric, topology);
  return slurm::RenderTopologyYaml(fabric, topology);
}

absl::Status RunExport(CliContext& ctx, const ExportOptions& opt) {
  TP_ASSIGN_OR_RETURN(FabricPtr fabric, LoadFabricSpec(opt.fabric));
  plugins::NodeNameMap names;
  if (!opt.node_map.empty()) {
    TP_ASSIGN_OR_RETURN(names, plugins::NodeNameMap::Load(opt.node_map));
  }
  TP_ASSIGN_OR_RETURN(Scope scope, ExportScope(*fabric, opt, names));
  TP_ASSIGN_OR_RETURN(std::string text, Render(*fabric, opt, names, scope));
  // What is left out is said where the operator looks, not only in the file's comments.
  for (const std::string& note : scope.notes) ctx.err << "topoplace export: " << note << "\n";
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
                  "kueue-topology (Kueue Topology), volcano-hypernodes (Volcano HyperNodes), "
                  "kai-topology (KAI Topology)")
      ->required()
      ->check(CLI::IsMember({"slurm-tree", "slurm-block", "slurm-yaml", "k8s-labels",
                             "kueue-topology", "volcano-hypernodes", "kai-topology"}));
  cmd->add_option("--fabric", opt->fabric, "Fabric file, or preset:NAME")->required();
  cmd->add_option("--node-map", opt->node_map,
                  "Slurm formats: file of 'FABRIC_HOST SLURM_NODE' lines for hosts whose "
                  "names differ");
  cmd->add_option("--nodes", opt->nodes,
                  "Export only these nodes: a file of names or Slurm hostlists (sinfo -N -h -o "
                  "%N), or kubectl get nodes -o name / -o json output; what is left out is said "
                  "on stderr");
  cmd->add_option("--out", opt->out, "Write here instead of stdout");
  cmd->add_option(
      "--kueue-api-version", opt->kueue_api_version,
      std::string("kueue-topology: the Kueue API version to write: ") + k8s::kKueueApiVersions);
  cmd->add_option("--block-base", opt->block_base,
                  "slurm-block, slurm-yaml: the planning base block in nodes (BlockSizes' first "
                  "entry), e.g. 16 of an NVL72 rack's 18 trays, so that trays out of service "
                  "change neither BlockSizes nor the blocks' positions (smaller blocks are "
                  "placeholders); default: the smallest block at least half the median");
  cmd->add_flag("--topograph-legacy-labels", opt->topograph_legacy_labels,
                "k8s-labels: also the keys topograph used before v1.0.0 "
                "(network.topology.nvidia.com/{accelerator,leaf,spine,core})");
  cmd->callback([&ctx, opt] {
    if (absl::Status s = RunExport(ctx, *opt); !s.ok()) ctx.Fail(s);
  });
}

}  // namespace topoplace::cli
