// The operating system as host discovery sees it: files and symlinks under a root
// directory ("/" on a live host, a recorded tree in tests). Keeping every read behind
// this interface lets tests run on recorded sysfs trees and lets fakes stand in.
#ifndef TOPOPLACE_TOPOLOGY_DISCOVERY_SYSFS_ENV_H_
#define TOPOPLACE_TOPOLOGY_DISCOVERY_SYSFS_ENV_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace topoplace::discovery {

// Read-only access to a file tree. Paths are relative to the root ("sys/class/net").
// Implementations must be safe for concurrent readers.
class SysfsEnv {
 public:
  virtual ~SysfsEnv() = default;
  // Contents of a file with trailing whitespace removed. NotFound if it does not exist.
  virtual absl::StatusOr<std::string> ReadFile(const std::string& path) const = 0;
  // Names in a directory, sorted; empty if it does not exist.
  virtual std::vector<std::string> ListDir(const std::string& path) const = 0;
  // The path with every symlink resolved, relative to the root; empty if it does not
  // exist or leaves the root.
  virtual std::string RealPath(const std::string& path) const = 0;
};
using SysfsEnvPtr = std::unique_ptr<SysfsEnv>;

// An env reading the real file system under `root`.
SysfsEnvPtr NewDiskSysfsEnv(const std::string& root);

}  // namespace topoplace::discovery

#endif  // TOPOPLACE_TOPOLOGY_DISCOVERY_SYSFS_ENV_H_
