// `topoplace fabric generate` and `topoplace fabric show`.
#include <memory>
#include <string>

#include "absl/strings/str_join.h"
#include "api/cli/commands.h"
#include "topology/base/status_macros.h"
#include "topology/generate/reference_fabrics.h"
#include "topology/io/fabric_file.h"
#include "topology/model/fabric_summary.h"

namespace topoplace::cli {
namespace {

struct GenerateOptions {
  std::string preset;
  std::string out;
  bool json = false;
};

struct ShowOptions {
  std::string fabric;
  bool json = false;
};

void PrintSummary(CliContext& ctx, const Fabric& fabric, bool json) {
  ctx.out << (json ? FabricSummaryJson(fabric) : FabricSummaryTable(fabric));
}

absl::Status RunGenerate(CliContext& ctx, const GenerateOptions& opt) {
  TP_ASSIGN_OR_RETURN(FabricPtr fabric, GeneratePreset(opt.preset));
  if (opt.out.empty()) {
    ctx.out << FabricToJson(*fabric);
    return absl::OkStatus();
  }
  TP_RETURN_IF_ERROR(SaveFabricFile(*fabric, opt.out));
  PrintSummary(ctx, *fabric, opt.json);
  return absl::OkStatus();
}

absl::Status RunShow(CliContext& ctx, const ShowOptions& opt) {
  TP_ASSIGN_OR_RETURN(FabricPtr fabric, LoadFabricSpec(opt.fabric));
  PrintSummary(ctx, *fabric, opt.json);
  return absl::OkStatus();
}

}  // namespace

void RegisterFabricCommands(CLI::App& fabric, CliContext& ctx) {
  auto generate_opt = std::make_shared<GenerateOptions>();
  CLI::App* generate = fabric.add_subcommand("generate", "Generate a reference fabric");
  generate->add_option("--preset", generate_opt->preset, "Preset name")
      ->required()
      ->description("Preset: " + absl::StrJoin(PresetNames(), ", "));
  generate->add_option("--out", generate_opt->out,
                       "Write the fabric file here (and print its summary); default: stdout");
  generate->add_flag("--json", generate_opt->json, "Print the summary as JSON");
  generate->callback([&ctx, generate_opt] {
    if (absl::Status s = RunGenerate(ctx, *generate_opt); !s.ok()) ctx.Fail(s);
  });

  auto show_opt = std::make_shared<ShowOptions>();
  CLI::App* show = fabric.add_subcommand("show", "Summarise a fabric");
  show->add_option("--fabric", show_opt->fabric, "Fabric file, or preset:NAME")->required();
  show->add_flag("--json", show_opt->json, "Print stable JSON instead of a table");
  show->callback([&ctx, show_opt] {
    if (absl::Status s = RunShow(ctx, *show_opt); !s.ok()) ctx.Fail(s);
  });
}

}  // namespace topoplace::cli
