// Turns an `ibnetdiscover` dump of an InfiniBand fabric into facts.
//
//   TP_ASSIGN_OR_RETURN(FabricFacts facts, LoadIbnetdiscoverFile("fabric.txt"));
//
// Real dumps are messy; each oddity gets a model and a (grouped) warning:
// - a CA an agent report lists by node or port GUID is that report's NIC of that host;
// - a CA whose NodeDescription is "<host> <hca>" (as OFED sets it) is NIC <hca> of <host>;
// - a CA with a factory-default NodeDescription ("MT4129 ConnectX7 Mellanox
//   Technologies") names no host: it joins the host of a CA with the same system image
//   GUID (when that differs from its own), as the NIC most HCAs on its leaf carry; else
//   it stays on its leaf as an unattributed NIC, named "H-<GUID>" (no host, block, rail or
//   export), listed per leaf in one warning;
// - hosts named alike ("localhost") whose HCAs belong to different systems are split and
//   renamed "<name>-<system GUID>" (see ibnetdiscover_cas.h);
// - a SHARP "Aggregation Node" is in-network compute inside its switch, not a host: it
//   becomes an aggregation node "an-<node GUID>" of the switch it is cabled to (no host,
//   no NIC, no link), and an informational warning names it and the switch;
// - a CA whose NodeDescription contains a management marker (UFM, subnet manager) is a
//   management server, not a compute host: left out, the warning says where it hangs;
// - a switch is named by the host part of "MF0;<name>:<model>/U1", else by a unique
//   non-default description, else by its GUID ("S-<guid>");
// - routers (Rt) and ports cabled to a GUID without a record are left out.
// Hosts with HCAs missing and storage HCAs beside compute HCAs are handled when the facts
// are merged (see nic_order.h).
#ifndef TOPOPLACE_TOPOLOGY_DISCOVERY_IBNETDISCOVER_H_
#define TOPOPLACE_TOPOLOGY_DISCOVERY_IBNETDISCOVER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "topology/discovery/facts.h"

namespace topoplace::discovery {

// An HCA an agent report places: the reporting host and the RDMA device's name.
struct ReportedHca {
  std::string host;
  std::string device;  // "mlx5_0"
};

struct IbnetdiscoverOptions {
  // Case-insensitive substrings of a CA's NodeDescription that mark a management server.
  std::vector<std::string> management_markers = {"ufm", "mgmt", "management", "opensm"};
  // HCAs agent reports place, by node GUID and by port GUID (ReportedHcas in
  // agent_report.h builds it). They win over NodeDescriptions.
  absl::flat_hash_map<uint64_t, ReportedHca> reported_hcas = {};
};

// Parses dump text; `source_name` prefixes every message ("fabric.txt:42: ...").
// Fails on malformed input (see ReadIbnetdiscoverRecords); never returns partial facts.
absl::StatusOr<FabricFacts> ParseIbnetdiscover(absl::string_view text,
                                               absl::string_view source_name,
                                               const IbnetdiscoverOptions& options = {});

// Reads and parses a dump file. NotFound if it cannot be read.
absl::StatusOr<FabricFacts> LoadIbnetdiscoverFile(const std::string& path,
                                                  const IbnetdiscoverOptions& options = {});

// True for NodeDescriptions that vendors ship by default and that therefore name no host
// or switch (empty, "MT23108 InfiniHost Mellanox Technologies", "ISR9024 Voltaire", ...).
bool IsFactoryDescription(absl::string_view description);

}  // namespace topoplace::discovery

#endif  // TOPOPLACE_TOPOLOGY_DISCOVERY_IBNETDISCOVER_H_
