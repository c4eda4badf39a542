#include "api/cli/commands.h"

namespace topoplace::cli {

void RegisterAllCommands(CLI::App& app, CliContext& ctx) {
  CLI::App* fabric = app.add_subcommand("fabric", "Generate, show and import fabrics");
  fabric->require_subcommand(1);
  RegisterFabricCommands(*fabric, ctx);
  RegisterImportCommand(*fabric, ctx);
  RegisterRenderCommand(*fabric, ctx);
  RegisterPlaceCommand(app, ctx);
  RegisterSimulateCommand(app, ctx);
  RegisterServiceCommands(app, ctx);
  RegisterExportCommand(app, ctx);
}

}  // namespace topoplace::cli
