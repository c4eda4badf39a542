// What every `topoplace` subcommand shares: where to print, and how a Status becomes the
// process exit code of the docs/DESIGN.md contract (0 ok, 2 bad input, 3 cannot place,
// 4 not allowed, 1 internal error).
#ifndef TOPOPLACE_API_CLI_CLI_CONTEXT_H_
#define TOPOPLACE_API_CLI_CLI_CONTEXT_H_

#include <ostream>
#include <string>

#include "absl/status/status.h"

namespace topoplace::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitCannotPlace = 3;
inline constexpr int kExitDenied = 4;

// Maps a status to the exit code: InvalidArgument, NotFound, AlreadyExists, OutOfRange
// -> 2; ResourceExhausted (a verdict such as "does not fit") -> 3; Unauthenticated,
// PermissionDenied -> 4 (hardening round four, finding 8: they were 1, "internal
// error"); anything else -> 1.
int ExitCodeFor(const absl::Status& status);

// Output streams and the exit code the chosen subcommand leaves behind.
// Not thread-safe; one per process.
struct CliContext {
  std::ostream& out;
  std::ostream& err;
  int exit_code = kExitOk;
  // Global `--server ADDR`: when set, commands that have a remote form ask the daemon
  // at ADDR instead of working on local files.
  std::string server;

  // Prints "topoplace: <message>" to `err`, records and returns its exit code.
  int Fail(const absl::Status& status);
};

}  // namespace topoplace::cli

#endif  // TOPOPLACE_API_CLI_CLI_CONTEXT_H_
