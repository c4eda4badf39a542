// `topoplace fabric render`: draw a fabric as SVG with Graphviz.
#include <memory>
#include <string>
#include <vector>

#include "api/cli/commands.h"
#include "topology/base/status_macros.h"
#include "topology/io/fabric_file.h"
#include "topology/render/fabric_dot.h"

namespace topoplace::cli {
namespace {

struct RenderOptions {
  std::string fabric;
  std::string out;
  std::vector<std::string> highlight;
  bool dot_only = false;
};

absl::Status RunRender(CliContext& ctx, const RenderOptions& opt) {
  TP_ASSIGN_OR_RETURN(const FabricPtr fabric, LoadFabricSpec(opt.fabric));
  render::DotOptions dot_options;
  dot_options.highlight.insert(opt.highlight.begin(), opt.highlight.end());
  const std::string dot = render::FabricToDot(*fabric, dot_options);
  if (opt.dot_only) {
    ctx.out << dot;
    return absl::OkStatus();
  }
  TP_RETURN_IF_ERROR(render::RenderDotToSvg(dot, opt.out));
  ctx.out << "wrote " << opt.out << "\n";
  return absl::OkStatus();
}

}  // namespace

void RegisterRenderCommand(CLI::App& fabric, CliContext& ctx) {
  auto opt = std::make_shared<RenderOptions>();
  CLI::App* cmd = fabric.add_subcommand("render", "Draw a fabric as SVG (Graphviz)");
  cmd->add_option("--fabric", opt->fabric, "Fabric file, or preset:NAME")->required();
  cmd->add_option("--out", opt->out, "SVG file to write");
  cmd->add_option("--highlight", opt->highlight, "Host names to draw highlighted");
  cmd->add_flag("--dot", opt->dot_only, "Print the Graphviz source instead of running dot");
  cmd->callback([&ctx, opt] {
    if (!opt->dot_only && opt->out.empty()) {
      ctx.Fail(absl::InvalidArgumentError("--out is required unless --dot is given"));
      return;
    }
    if (absl::Status s = RunRender(ctx, *opt); !s.ok()) ctx.Fail(s);
  });
}

}  // namespace topoplace::cli
