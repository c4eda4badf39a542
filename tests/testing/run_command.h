// Runs a program the way a user would and captures what it printed, for tests that check
// real binaries (exit codes, output contracts).
#ifndef TOPOPLACE_TESTS_TESTING_RUN_COMMAND_H_
#define TOPOPLACE_TESTS_TESTING_RUN_COMMAND_H_

#include <string>

namespace topoplace::testing {

struct CommandResult {
  int exit_code = -1;  // -1 if the program did not exit normally
  std::string out;     // standard output
  std::string err;     // standard error
};

// Runs `command` with /bin/sh -c and waits for it. Not thread-safe (uses temp files).
CommandResult RunCommand(const std::string& command);

// Quotes `arg` for /bin/sh.
std::string ShellQuote(const std::string& arg);

}  // namespace topoplace::testing

#endif  // TOPOPLACE_TESTS_TESTING_RUN_COMMAND_H_
