// `topoplace`: the command-line tool for people and scripts.
#include <CLI/CLI.hpp>
#include <iostream>

#include "api/cli/cli_context.h"
#include "api/cli/commands.h"

int main(int argc, char** argv) {
  using topoplace::cli::CliContext;
  CliContext ctx{.out = std::cout, .err = std::cerr, .exit_code = 0, .server = ""};
  CLI::App app{"topoplace: topology-aware placement for GPU training clusters"};
  app.require_subcommand(1);
  app.add_option("--server", ctx.server, "Address of a running topoplaced (host:port)");
  topoplace::cli::RegisterAllCommands(app, ctx);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Usage errors are bad input (exit 2); --help is a success.
    int rc = app.exit(e);
    return rc == 0 ? 0 : topoplace::cli::kExitBadInput;
  }
  return ctx.exit_code;
}
