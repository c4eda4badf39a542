// `topoplace fabric generate` and `topoplace fabric show`.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "api/cli/commands.h"
#include "base/status_macros.h"
#include "client/topoplace_client.h"
#include "topology/generate/reference_fabrics.h"
#include "topology/io/fabric_file.h"
#include "topology/model/fabric_summary.h"

namespace topoplace::cli {
namespace {

struct GenerateOptions {
  std::string preset;
  std::string out;
  bool json = false;
  ClosParams overrides;  // fields the user set on the command line
};

// Options that reshape a preset (or the default ClosParams when no preset is given).
void AddShapeOptions(CLI::App& cmd, GenerateOptions& opt) {
  ClosParams& p = opt.overrides;
  cmd.add_option("--name", p.name, "Fabric name");
  cmd.add_option("--tiers", p.tiers, "2 (leaf+spine) or 3 (leaf+spine+core)");
  cmd.add_option("--pods", p.pods, "Pods (3 tiers only)");
  cmd.add_option("--blocks-per-pod", p.blocks_per_pod, "Blocks (scalable units) per pod");
  cmd.add_option("--nodes-per-block", p.nodes_per_block, "Nodes per block");
  cmd.add_option("--gpus-per-node", p.gpus_per_node, "GPUs per node");
  cmd.add_option("--rails", p.rails, "NICs per node, one rail leaf each per block");
  cmd.add_option("--nic-gbps", p.nic_gbps, "NIC speed");
  cmd.add_option("--spines-per-pod", p.spines_per_pod, "Spines per pod");
  cmd.add_option("--rail-planes", p.rail_planes, "Split spines among rails (true/false)");
  cmd.add_option("--leaf-uplink-gbps", p.leaf_uplink_gbps, "Leaf-to-spine cable speed");
  cmd.add_option("--leaf-oversubscription", p.leaf_oversubscription, "Leaf down:up ratio");
  cmd.add_option("--cores", p.cores, "Core switches (3 tiers only)");
  cmd.add_option("--spine-uplink-gbps", p.spine_uplink_gbps, "Spine-to-core cable speed");
  cmd.add_option("--spine-oversubscription", p.spine_oversubscription, "Spine down:up ratio");
  cmd.add_option("--nodes-per-nvlink-domain", p.nodes_per_nvlink_domain,
                 "Hosts per NVLink domain (a rack of trays on one NVLink switch fabric)");
}

// The preset's parameters with every option the user gave applied on top.
absl::StatusOr<ClosParams> ShapeFor(const CLI::App& cmd, const GenerateOptions& opt) {
  ClosParams p;
  if (!opt.preset.empty()) {
    TP_ASSIGN_OR_RETURN(p, PresetParams(opt.preset));
  }
  const ClosParams& o = opt.overrides;
  auto given = [&cmd](const char* name) { return cmd.count(name) > 0; };
  if (given("--name")) p.name = o.name;
  if (given("--tiers")) p.tiers = o.tiers;
  if (given("--pods")) p.pods = o.pods;
  if (given("--blocks-per-pod")) p.blocks_per_pod = o.blocks_per_pod;
  if (given("--nodes-per-block")) p.nodes_per_block = o.nodes_per_block;
  if (given("--gpus-per-node")) p.gpus_per_node = o.gpus_per_node;
  if (given("--rails")) p.rails = o.rails;
  if (given("--nic-gbps")) p.nic_gbps = o.nic_gbps;
  if (given("--spines-per-pod")) p.spines_per_pod = o.spines_per_pod;
  if (given("--rail-planes")) p.rail_planes = o.rail_planes;
  if (given("--leaf-uplink-gbps")) p.leaf_uplink_gbps = o.leaf_uplink_gbps;
  if (given("--leaf-oversubscription")) p.leaf_oversubscription = o.leaf_oversubscription;
  if (given("--cores")) p.cores = o.cores;
  if (given("--spine-uplink-gbps")) p.spine_uplink_gbps = o.spine_uplink_gbps;
  if (given("--spine-oversubscription")) p.spine_oversubscription = o.spine_oversubscription;
  if (given("--nodes-per-nvlink-domain")) p.nodes_per_nvlink_domain = o.nodes_per_nvlink_domain;
  return p;
}

struct ShowOptions {
  std::string fabric;
  bool json = false;
};

void PrintSummary(CliContext& ctx, const Fabric& fabric, bool json) {
  ctx.out << (json ? FabricSummaryJson(fabric) : FabricSummaryTable(fabric));
}

absl::Status RunGenerate(CliContext& ctx, const CLI::App& cmd, const GenerateOptions& opt) {
  TP_ASSIGN_OR_RETURN(ClosParams params, ShapeFor(cmd, opt));
  TP_ASSIGN_OR_RETURN(FabricPtr fabric, GenerateClos(params));
  if (opt.out.empty()) {
    ctx.out << FabricToJson(*fabric);
    return absl::OkStatus();
  }
  TP_RETURN_IF_ERROR(SaveFabricFile(*fabric, opt.out));
  PrintSummary(ctx, *fabric, opt.json);
  return absl::OkStatus();
}

absl::Status RunShow(CliContext& ctx, const ShowOptions& opt) {
  if (!ctx.server.empty()) {
    if (!opt.fabric.empty()) {
      return absl::InvalidArgumentError(
          "--fabric and --server exclude each other: the daemon "
          "shows the fabric it serves");
    }
    TP_ASSIGN_OR_RETURN(client::v1::FabricSummary summary, client::RemoteFabricSummary(ctx.server));
    ctx.out << (opt.json ? summary.json() : summary.table());
    return absl::OkStatus();
  }
  if (opt.fabric.empty()) {
    return absl::InvalidArgumentError(
        "--fabric is required (a fabric file or preset:NAME), "
        "unless --server names a running topoplaced");
  }
  TP_ASSIGN_OR_RETURN(FabricPtr fabric, LoadFabricSpec(opt.fabric));
  PrintSummary(ctx, *fabric, opt.json);
  return absl::OkStatus();
}

}  // namespace

void RegisterFabricCommands(CLI::App& fabric, CliContext& ctx) {
  auto generate_opt = std::make_shared<GenerateOptions>();
  CLI::App* generate = fabric.add_subcommand("generate", "Generate a reference fabric");
  generate->add_option("--preset", generate_opt->preset)
      ->description("Start from a preset: " + absl::StrJoin(PresetNames(), ", ") +
                    "; shape options below override its parameters");
  generate->add_option("--out", generate_opt->out,
                       "Write the fabric file here (and print its summary); default: stdout");
  generate->add_flag("--json", generate_opt->json, "Print the summary as JSON");
  AddShapeOptions(*generate, *generate_opt);
  generate->callback([&ctx, generate, generate_opt] {
    if (absl::Status s = RunGenerate(ctx, *generate, *generate_opt); !s.ok()) ctx.Fail(s);
  });

  auto show_opt = std::make_shared<ShowOptions>();
  CLI::App* show = fabric.add_subcommand("show", "Summarise a fabric");
  show->add_option("--fabric", show_opt->fabric, "Fabric file, or preset:NAME (not with --server)");
  show->add_flag("--json", show_opt->json, "Print stable JSON instead of a table");
  show->callback([&ctx, show_opt] {
    if (absl::Status s = RunShow(ctx, *show_opt); !s.ok()) ctx.Fail(s);
  });
}

}  // namespace topoplace::cli
