// The report `topoplace-agent` makes about its host: NICs/HCAs, GPUs with their PCIe
// affinity, NVLink domain and LLDP neighbors. Written as JSON (format
// "topoplace.agent-report/v1") by `topoplace-agent --once --json` and read by
// `topoplace fabric import --agent-report`.
#ifndef TOPOPLACE_TOPOLOGY_DISCOVERY_AGENT_REPORT_H_
#define TOPOPLACE_TOPOLOGY_DISCOVERY_AGENT_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "topology/discovery/facts.h"
#include "topology/discovery/ibnetdiscover.h"
#include "topology/discovery/lldp.h"

namespace topoplace::discovery {

// One used entry of an RDMA port's GID table (unused, all-zero entries are left out).
struct AgentGid {
  int32_t index = 0;
  std::string gid = {};     // "fe80:0000:0000:0000:0a00:00ff:fe00:0001", as sysfs prints it
  std::string type = {};    // "IB", "RoCE v1", "RoCE v2", or empty if unknown
  std::string netdev = {};  // the netdev a RoCE GID belongs to; empty for IB
};

struct AgentNic {
  std::string name = {};   // netdev ("eth0") or RDMA device ("mlx5_0") name
  double speed_gbps = 0;   // 0: unknown
  std::string state = {};  // "up", "down", ... (operstate or port state, lower case)
  std::string pci = {};    // "0000:17:00.0", empty if virtual
  int32_t numa = -1;
  std::string rdma_device = {};     // "mlx5_0" if the netdev belongs to an RDMA device
  std::string link_layer = {};      // "InfiniBand", "Ethernet" or empty
  std::vector<AgentGid> gids = {};  // RDMA ports only; written to JSON only when non-empty
  // RDMA ports only (0: unknown; written to JSON only when known). The join key between
  // this host and the CAs of an ibnetdiscover dump, whatever their NodeDescription says.
  uint64_t node_guid = 0;       // sysfs node_guid
  uint64_t sys_image_guid = 0;  // sysfs sys_image_guid: equal for the HCAs of one system image
  uint64_t port_guid = 0;       // the port's GUID (low half of its IB GID 0)
};

struct AgentGpu {
  int32_t index = 0;
  std::string pci = {};
  int32_t numa = -1;
  std::string nic = {};  // the NIC under the same PCIe switch, empty if none
};

struct AgentReport {
  std::string host = {};
  std::string nvlink_domain = {};
  // The GPUs' model as nvidia-smi names it ("NVIDIA GB200"); empty: unknown.
  std::string gpu_model = {};
  std::vector<AgentNic> nics = {};
  std::vector<AgentGpu> gpus = {};
  std::vector<LldpNeighbor> lldp = {};  // as seen by this host
  std::vector<std::string> warnings = {};
};

inline constexpr absl::string_view kAgentReportFormat = "topoplace.agent-report/v1";

// A GUID as sysfs prints it: "0c42:a103:0004:5678".
std::string FormatGuid(uint64_t guid);
// Parses "0c42:a103:0004:5678" (sysfs) or "0x0c42a10300045678"; nullopt otherwise.
std::optional<uint64_t> ParseGuid(absl::string_view text);

// The system image GUID of a report: the first one its NICs carry, 0 if none does.
uint64_t ReportSystemGuid(const AgentReport& report);

// Adds the HCAs `report` names with GUIDs to `hcas`, by node GUID and by port GUID, so an
// ibnetdiscover import can place them (IbnetdiscoverOptions::reported_hcas).
void AddReportedHcas(const AgentReport& report, absl::flat_hash_map<uint64_t, ReportedHca>& hcas);

// Serialises `report` as pretty-printed JSON ending in a newline.
std::string AgentReportToJson(const AgentReport& report);

// Parses a report. InvalidArgument naming `source_name` and the field on malformed JSON,
// a wrong format tag, a missing host name or a field of the wrong type.
absl::StatusOr<AgentReport> ParseAgentReport(absl::string_view text, absl::string_view source_name);
// Reads and parses a report file. NotFound if it cannot be read.
absl::StatusOr<AgentReport> LoadAgentReportFile(const std::string& path);

// The host with its NICs and GPUs, and one link per LLDP neighbor. A NIC that is down or
// has no neighbor is kept (uncabled) and named in a warning, so a dead link is visible.
FabricFacts AgentReportToFacts(const AgentReport& report, absl::string_view origin);

}  // namespace topoplace::discovery

#endif  // TOPOPLACE_TOPOLOGY_DISCOVERY_AGENT_REPORT_H_
