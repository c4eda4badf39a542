// Reads a whole file into memory with a Status instead of an exception.
#ifndef TOPOPLACE_TOPOLOGY_DISCOVERY_READ_FILE_H_
#define TOPOPLACE_TOPOLOGY_DISCOVERY_READ_FILE_H_

#include <string>

#include "absl/status/statusor.h"

namespace topoplace::discovery {

// Returns the bytes of `path` (a file or a pipe, at most 1 GiB: base/input_file.h).
// NotFound if it cannot be opened, InvalidArgument for a device or directory or past the
// bound, DataLoss on a read error.
absl::StatusOr<std::string> ReadWholeFile(const std::string& path);

}  // namespace topoplace::discovery

#endif  // TOPOPLACE_TOPOLOGY_DISCOVERY_READ_FILE_H_
