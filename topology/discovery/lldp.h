// Turns LLDP neighbor tables (`lldpcli -f json0 show neighbors details`, from hosts or
// switches) into facts.
//
//   TP_ASSIGN_OR_RETURN(LldpView view, ParseLldpNeighbors(text, "h1.json0", "h1"));
//   FabricFacts facts = LldpViewToFacts(view);
//
// `-f json0` (always arrays) is the format to use; `-f json` (an object when there is one
// entry, an array when there are several) is read too. A text may also hold the output
// of `lldpcli show chassis` (a "local-chassis" document), which names the local system
// and tells whether it is a bridge; otherwise the caller names it.
#ifndef TOPOPLACE_TOPOLOGY_DISCOVERY_LLDP_H_
#define TOPOPLACE_TOPOLOGY_DISCOVERY_LLDP_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "topology/discovery/facts.h"

namespace topoplace::discovery {

// One neighbor seen on one local port.
struct LldpNeighbor {
  std::string local_port = {};         // "eth0", "swp3"
  std::string system_name = {};        // the neighbor's chassis name (its chassis id if unnamed)
  std::string port = {};               // the neighbor's port: ifname, else its description
  NodeRole role = NodeRole::kUnknown;  // switch if Bridge/Router is enabled, host if Station
  double speed_gbps = 0;               // from the auto-negotiation MAU type; 0 if unknown
  std::string origin = {};             // "file: lldp.interface[1]"
};

// What one system's LLDP daemon sees.
struct LldpView {
  std::string local_name = {};
  NodeRole local_role = NodeRole::kUnknown;
  std::vector<LldpNeighbor> neighbors = {};
};

// Parses one or more JSON documents of lldpcli output. `local_name` names the local
// system unless a "local-chassis" document does. Fails with InvalidArgument naming the
// source and the JSON field on malformed JSON or an unexpected shape, and when nobody
// names the local system.
absl::StatusOr<LldpView> ParseLldpNeighbors(absl::string_view text, absl::string_view source_name,
                                            absl::string_view local_name);

// One link per neighbor, from the local port to the neighbor's port.
FabricFacts LldpViewToFacts(const LldpView& view);

// Reads a neighbors file, or every regular file of a directory (sorted by name), naming
// each local system after its file unless the file says otherwise:
// "lldp-neighbors-leaf1.json0" -> "leaf1" (prefixes "lldp-neighbors-", "lldp-" and the
// extension are dropped). NotFound if `path` does not exist.
absl::StatusOr<FabricFacts> LoadLldpPath(const std::string& path);

}  // namespace topoplace::discovery

#endif  // TOPOPLACE_TOPOLOGY_DISCOVERY_LLDP_H_
