// The bound-port handshake of our daemons: a daemon started with `--port-file F` and
// port 0 writes the port it got to F, so tests and scripts learn where to connect.
#ifndef TOPOPLACE_BASE_PORT_FILE_H_
#define TOPOPLACE_BASE_PORT_FILE_H_

#include <string>

#include "absl/status/status.h"

namespace topoplace {

// Writes `port` and a newline to `path` through a rename, so a reader polling the file
// never sees half a number. Unavailable (naming --port-file) if it cannot be written.
absl::Status WritePortFile(const std::string& path, int port);

}  // namespace topoplace

#endif  // TOPOPLACE_BASE_PORT_FILE_H_
