#include "api/cli/commands.h"

namespace topoplace::cli {

// `health [--link L | --switch S | --job J]` against --server (api/cli/health_command.cc).
void RegisterHealthCommand(CLI::App& app, CliContext& ctx);

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
  RegisterHealthCommand(app, ctx);
}

}  // namespace topoplace::cli
