// `topoplace fabric render`: draw a fabric as SVG. By default aggregated (blocks, or pods
// on the largest fabrics; --pod and --block drill in), readable at any size; --detail draws
// every host and switch with Graphviz (for small fabrics).
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/cli/commands.h"
#include "base/status_macros.h"
#include "topology/io/fabric_file.h"
#include "topology/render/fabric_dot.h"
#include "topology/render/fabric_overview.h"

namespace topoplace::cli {
namespace {

struct RenderOptions {
  std::string fabric;
  std::string out;
  std::vector<std::string> highlight;
  bool dot_only = false;
  bool detail = false;
  int pod = -1;
  int block = -1;
};

absl::Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) return absl::UnavailableError(absl::StrCat("--out: cannot write '", path, "'"));
  return absl::OkStatus();
}

absl::Status RunRender(CliContext& ctx, const RenderOptions& opt) {
  TP_ASSIGN_OR_RETURN(const FabricPtr fabric, LoadFabricSpec(opt.fabric));
  if (!opt.detail && !opt.dot_only) {
    TP_ASSIGN_OR_RETURN(const std::string svg,
                        render::FabricOverviewSvg(*fabric, {.pod = opt.pod, .block = opt.block}));
    TP_RETURN_IF_ERROR(WriteFile(opt.out, svg));
    ctx.out << "wrote " << opt.out << "\n";
    return absl::OkStatus();
  }
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
  CLI::App* cmd = fabric.add_subcommand(
      "render", "Draw a fabric as SVG: aggregated by blocks or pods, or every host (--detail)");
  cmd->add_option("--fabric", opt->fabric, "Fabric file, or preset:NAME")->required();
  cmd->add_option("--out", opt->out, "SVG file to write");
  cmd->add_option("--pod", opt->pod, "Draw the blocks of this pod")->check(CLI::NonNegativeNumber);
  cmd->add_option("--block", opt->block, "Draw this block's leaves and hosts")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--detail", opt->detail,
                "Draw every host and switch with Graphviz (readable up to a few dozen hosts)");
  cmd->add_option("--highlight", opt->highlight, "With --detail: host names to draw highlighted");
  cmd->add_flag("--dot", opt->dot_only,
                "Print the Graphviz source of --detail instead of running dot");
  cmd->callback([&ctx, opt] {
    if (!opt->dot_only && opt->out.empty()) {
      ctx.Fail(absl::InvalidArgumentError("--out is required unless --dot is given"));
      return;
    }
    if ((opt->detail || opt->dot_only) && (opt->pod >= 0 || opt->block >= 0)) {
      ctx.Fail(
          absl::InvalidArgumentError("--pod and --block draw the aggregated picture; "
                                     "leave out --detail and --dot"));
      return;
    }
    if (!opt->highlight.empty() && !opt->detail && !opt->dot_only) {
      ctx.Fail(absl::InvalidArgumentError("--highlight needs --detail"));
      return;
    }
    if (absl::Status s = RunRender(ctx, *opt); !s.ok()) ctx.Fail(s);
  });
}

}  // namespace topoplace::cli
