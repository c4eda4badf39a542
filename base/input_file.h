// Reads a file an operator names as input (a fabric, a trace, a configuration, a node
// list): whole, with a bound, and only if it is a regular file. (Hardening round four,
// finding 8: /dev/zero as a fabric, trace or config file grew to about 2 GB and aborted,
// and a FIFO hung the command waiting for a writer.)
#ifndef TOPOPLACE_BASE_INPUT_FILE_H_
#define TOPOPLACE_BASE_INPUT_FILE_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace topoplace {

// The bound for a credential file (a PEM certificate chain, a private key, a password): the
// longest chains in use are a few kilobytes.
inline constexpr size_t kMaxCredentialFileBytes = size_t{1} << 20;

// Which files ReadInputFile takes besides regular ones.
enum class InputKind {
  kRegularFile,  // a FIFO would block: refused
  kFileOrPipe,   // also a pipe, as `--nvidia-smi <(nvidia-smi -q)` gives (still bounded)
};

// The bytes of `path`, at most `max_bytes` of them. NotFound if it cannot be opened;
// InvalidArgument naming `what` and the path for a device, socket or directory, and a FIFO
// unless `kind` takes pipes (checked before opening, so a FIFO never blocks), and for a
// file longer than `max_bytes`; DataLoss on a read error.
absl::StatusOr<std::string> ReadInputFile(const std::string& path, size_t max_bytes,
                                          absl::string_view what = "input file",
                                          InputKind kind = InputKind::kRegularFile);

}  // namespace topoplace

#endif  // TOPOPLACE_BASE_INPUT_FILE_H_
