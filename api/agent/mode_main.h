// What every long-running agent mode (probe, counters) does around its loop: parse its
// flags, stop on SIGINT/SIGTERM (and ignore SIGPIPE), run, and turn the status into the
// exit code: 0 ok, 2 bad input (flags, InvalidArgument, NotFound), 1 otherwise, with the
// message on stderr.
//
//   CLI::App app{"topoplace-agent counters: ..."};
//   app.add_option(...);
//   return RunMode(app, argc, argv, [&] { return Run(opt); });
//
// Inside `run`, StopRequested() turns true once a signal arrived; SleepUntil waits for a
// deadline or a signal, whichever comes first. One mode runs per process.
#ifndef TOPOPLACE_API_AGENT_MODE_MAIN_H_
#define TOPOPLACE_API_AGENT_MODE_MAIN_H_

#include <CLI/CLI.hpp>
#include <chrono>
#include <functional>

#include "absl/status/status.h"

namespace topoplace::agent {

int RunMode(CLI::App& app, int argc, char** argv, const std::function<absl::Status()>& run);
bool StopRequested();
void SleepUntil(std::chrono::steady_clock::time_point deadline);

}  // namespace topoplace::agent

#endif  // TOPOPLACE_API_AGENT_MODE_MAIN_H_
