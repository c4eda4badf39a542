// Maps fabric host names to scheduler node names and back, for clusters where the two
// differ: Slurm's nodes (the SPANK plugin, the exports) and the kubelets' node names (the
// Kubernetes extender). In namespace slurm, where it began; both adapters use it.
//
// File format: one "FABRIC_HOST SLURM_NODE" pair per line; blank lines and text after
// '#' are ignored. Hosts not listed keep their fabric name.
#ifndef TOPOPLACE_PLUGINS_COMMON_NODE_NAME_MAP_H_
#define TOPOPLACE_PLUGINS_COMMON_NODE_NAME_MAP_H_

#include <cstddef>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace topoplace::plugins {

// The longest node map read: a line per host of the largest fabric is well under 16 MB.
inline constexpr size_t kMaxNodeNameMapBytes = size_t{16} << 20;

class NodeNameMap {
 public:
  NodeNameMap() = default;  // identity

  // Parses the file format above; `source` names the input in errors ("map.txt:3: ...").
  // Fails on malformed lines and on a host or node mapped twice.
  static absl::StatusOr<NodeNameMap> Parse(absl::string_view text, absl::string_view source);
  // Reads and parses a file; NotFound if it cannot be read, InvalidArgument for a FIFO,
  // device or directory or past kMaxNodeNameMapBytes (base/input_file.h).
  static absl::StatusOr<NodeNameMap> Load(const std::string& path);

  // The Slurm node name of `host`.
  std::string NodeName(const std::string& host) const;
  // The fabric host of Slurm node `node` (the inverse of NodeName).
  std::string HostName(const std::string& node) const;

 private:
  absl::flat_hash_map<std::string, std::string> node_of_host_;
  absl::flat_hash_map<std::string, std::string> host_of_node_;
};

}  // namespace topoplace::plugins

#endif  // TOPOPLACE_PLUGINS_COMMON_NODE_NAME_MAP_H_
