// `topoplace fabric generate` and `topoplace fabric show`.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/cli/commands.h"
#include "base/status_macros.h"
#include "client/topoplace_client.h"
#include "nlohmann/json.hpp"
#include "topology/generate/reference_fabrics.h"
#include "topology/io/fabric_file.h"
#include "topology/model/fabric_graph.h"
#include "topology/model/fabric_paths.h"
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

struct PathsOptions {
  std::string fabric, from, to;
  bool json = false;
};

absl::StatusOr<NicId> NicNamed(const Fabric& fabric, const std::string& flag,
                               const std::string& name) {
  const std::optional<NicId> nic = fabric.FindNic(name);
  if (!nic) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " '", name, "': no such NIC on fabric ",
                                                   fabric.name(), " (expected HOST/NIC)"));
  }
  return *nic;
}

// The shortest paths between two NICs, hop by hop, each link with its cables.
absl::Status RunPaths(CliContext& ctx, const PathsOptions& opt) {
  TP_ASSIGN_OR_RETURN(FabricPtr fabric, LoadFabricSpec(opt.fabric));
  TP_ASSIGN_OR_RETURN(NicId from, NicNamed(*fabric, "--from", opt.from));
  TP_ASSIGN_OR_RETURN(NicId to, NicNamed(*fabric, "--to", opt.to));
  const NicPaths paths = ShortestNicPaths(BuildFabricGraph(*fabric), *fabric, from, to);
  const auto name = [&fabric](LinkId l) {
    const Link& link = fabric->links()[static_cast<size_t>(l)];
    return absl::StrCat(fabric->EndpointName(link.a), "--", fabric->EndpointName(link.b));
  };
  if (opt.json) {
    nlohmann::json hops = nlohmann::json::array();
    for (const std::vector<LinkId>& hop : paths.hops) {
      nlohmann::json links = nlohmann::json::array();
      for (LinkId l : hop) {
        links.push_back({{"link", name(l)}, {"cables", fabric->links()[l].count}});
      }
      hops.push_back(links);
    }
    ctx.out << nlohmann::json{{"from", opt.from},
                              {"to", opt.to},
                              {"switch_hops", paths.switch_hops},
                              {"equal_cost_paths", paths.equal_cost_paths},
                              {"hops", hops}}
                   .dump(2)
            << "\n";
    return absl::OkStatus();
  }
  if (paths.switch_hops < 0) {
    ctx.out << opt.from << " to " << opt.to << ": no path over links that are up\n";
    return absl::OkStatus();
  }
  ctx.out << opt.from << " to " << opt.to << ": " << paths.switch_hops << " switch(es), "
          << paths.equal_cost_paths << " equal-cost path(s) counting each cable\n";
  // A hop's first few links, then how many more: a core hop has thousands.
  constexpr size_t kShown = 4;
  for (size_t h = 0; h < paths.hops.size(); ++h) {
    std::vector<std::string> links;
    int cables = 0;
    for (LinkId l : paths.hops[h]) {
      const int count = fabric->links()[static_cast<size_t>(l)].count;
      cables += count;
      if (links.size() < kShown) {
        links.push_back(count > 1 ? absl::StrCat(name(l), " (x", count, ")") : name(l));
      }
    }
    const size_t more = paths.hops[h].size() - links.size();
    ctx.out << "  hop " << h + 1 << ": " << absl::StrJoin(links, ", ")
            << (more > 0 ? absl::StrCat(" and ", more, " more links (", cables, " cables in all)")
                         : "")
            << "\n";
  }
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

  auto paths_opt = std::make_shared<PathsOptions>();
  CLI::App* paths = fabric.add_subcommand(
      "paths", "The shortest paths between two NICs over links that are up, hop by hop");
  paths->add_option("--fabric", paths_opt->fabric, "Fabric file, or preset:NAME")->required();
  paths->add_option("--from", paths_opt->from, "One end, as HOST/NIC")->required();
  paths->add_option("--to", paths_opt->to, "The other end, as HOST/NIC")->required();
  paths->add_flag("--json", paths_opt->json, "Print stable JSON instead of a table");
  paths->callback([&ctx, paths_opt] {
    if (absl::Status s = RunPaths(ctx, *paths_opt); !s.ok()) ctx.Fail(s);
  });
}

}  // namespace topoplace::cli
