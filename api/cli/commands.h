// The `topoplace` subcommands. Each Register* adds its subcommands to `app`; their
// callbacks run the command and leave the exit code in `ctx`. The registry in
// commands.cc lists them all explicitly.
#ifndef TOPOPLACE_API_CLI_COMMANDS_H_
#define TOPOPLACE_API_CLI_COMMANDS_H_

#include <CLI/CLI.hpp>

#include "api/cli/cli_context.h"

namespace topoplace::cli {

// Adds every subcommand below to `app`.
void RegisterAllCommands(CLI::App& app, CliContext& ctx);

// `fabric generate`, `fabric show` (api/cli/fabric_commands.cc).
void RegisterFabricCommands(CLI::App& fabric, CliContext& ctx);
void RegisterPlaceCommand(CLI::App& app, CliContext& ctx);  // `place` (api/cli/place_command.cc)
// `fabric import` (api/cli/import_command.cc) and `fabric render` (api/cli/render_command.cc).
void RegisterImportCommand(CLI::App& fabric, CliContext& ctx);
void RegisterRenderCommand(CLI::App& fabric, CliContext& ctx);
// `simulate` (api/cli/simulate_command.cc).
void RegisterSimulateCommand(CLI::App& app, CliContext& ctx);
// `reserve`, `renew`, `commit`, `release`, `allocations`, `explain`, `preempt` against --server
// (api/cli/service_commands.cc).
void RegisterServiceCommands(CLI::App& app, CliContext& ctx);
// `export slurm-tree|slurm-block|slurm-yaml` (api/cli/export_command.cc).
void RegisterExportCommand(CLI::App& app, CliContext& ctx);

}  // namespace topoplace::cli

#endif  // TOPOPLACE_API_CLI_COMMANDS_H_
