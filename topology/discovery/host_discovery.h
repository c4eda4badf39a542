// Discovers the local facts of one host from sysfs: RDMA devices
// (/sys/class/infiniband), network interfaces (/sys/class/net), NVIDIA GPUs (PCI vendor
// 0x10de) and which NIC shares each GPU's PCIe switch (what GPUDirect RDMA needs).
//
//   SysfsEnvPtr env = NewDiskSysfsEnv("/");
//   TP_ASSIGN_OR_RETURN(AgentReport report, DiscoverHost(*env, {}));
#ifndef TOPOPLACE_TOPOLOGY_DISCOVERY_HOST_DISCOVERY_H_
#define TOPOPLACE_TOPOLOGY_DISCOVERY_HOST_DISCOVERY_H_

#include <string>

#include "absl/status/statusor.h"
#include "topology/discovery/agent_report.h"
#include "topology/discovery/sysfs_env.h"

namespace topoplace::discovery {

struct HostDiscoveryOptions {
  // Virtual interfaces (no PCI device: veth, bridges) are skipped unless their name
  // matches this fnmatch(3) pattern ("eth*"); loopback is always skipped.
  std::string netdev_pattern = {};
  // Optional file holding the NVLink domain (e.g. the NVLink clique or cluster UUID that
  // nvidia-smi reports); relative to the env root. Empty: not read.
  std::string nvlink_domain_file = {};
  // The text of `nvidia-smi -q` for this host's GPUs (gpu_fabric.h): its Fabric sections
  // give the NVLink domain when the file above does not. Empty: not used.
  std::string nvidia_smi_q = {};
};

// Fills nics, gpus and nvlink_domain of a report (host name and LLDP are the caller's).
// An RDMA device with a netdev (RoCE) is named after the netdev, so that LLDP neighbors
// seen on that netdev attach to it; an InfiniBand port is named after its device.
// Each RDMA port's used GID table rows are recorded with their type (IB, RoCE v1, RoCE v2)
// and netdev. GPUs are indexed in PCI address order. Missing files are not errors: a host without
// GPUs or RDMA devices simply reports none.
absl::StatusOr<AgentReport> DiscoverHost(const SysfsEnv& env, const HostDiscoveryOptions& options);

// Number of PCI path components two devices share below the root complex; 2 or more
// means they sit under the same PCIe switch (root port + switch upstream port).
int SharedPciDepth(const std::string& real_path_a, const std::string& real_path_b);

}  // namespace topoplace::discovery

#endif  // TOPOPLACE_TOPOLOGY_DISCOVERY_HOST_DISCOVERY_H_
