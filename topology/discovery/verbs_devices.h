// RDMA devices as libibverbs reports them (device list, port state, link layer, GUID,
// active speed and width). sysfs (host_discovery.h) gives the same facts without opening
// devices; verbs is the authority when devices exist.
#ifndef TOPOPLACE_TOPOLOGY_DISCOVERY_VERBS_DEVICES_H_
#define TOPOPLACE_TOPOLOGY_DISCOVERY_VERBS_DEVICES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace topoplace::discovery {

struct VerbsPort {
  int32_t port = 1;
  std::string state;       // "active", "down", ...
  std::string link_layer;  // "InfiniBand" or "Ethernet"
  int32_t width = 0;       // lanes (1, 2, 4, 8, 12)
  double speed_gbps = 0;   // width x lane rate
};

struct VerbsDevice {
  std::string name;        // "mlx5_0"
  uint64_t node_guid = 0;  // host byte order
  std::vector<VerbsPort> ports = {};
};

// Lists RDMA devices through libibverbs. A NULL device list (this kernel: errno ENOSYS,
// no RDMA subsystem) means zero devices, not an error; so does a build without
// libibverbs. Internal only if an opened device cannot be queried.
absl::StatusOr<std::vector<VerbsDevice>> ListVerbsDevices();

}  // namespace topoplace::discovery

#endif  // TOPOPLACE_TOPOLOGY_DISCOVERY_VERBS_DEVICES_H_
