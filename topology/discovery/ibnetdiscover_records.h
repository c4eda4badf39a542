// The records of an `ibnetdiscover` dump, as written, before any interpretation.
//
// A dump is a list of node records (`Switch`, `Ca`, `Rt`), each preceded by `key=value`
// lines (vendid, devid, sysimgguid, switchguid/caguid) and followed by one `[port]` line
// per cabled port naming the peer node, its port, and in a comment the peer's
// NodeDescription, LID and the link's width and speed (`4xNDR`).
#ifndef TOPOPLACE_TOPOLOGY_DISCOVERY_IBNETDISCOVER_RECORDS_H_
#define TOPOPLACE_TOPOLOGY_DISCOVERY_IBNETDISCOVER_RECORDS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace topoplace::discovery {

enum class IbNodeKind : uint8_t { kSwitch, kCa, kRouter };

struct IbPort {
  int32_t port = 0;
  uint64_t port_guid = 0;  // the local port's GUID from "[port](guid)"; 0: not given
  IbNodeKind peer_kind = IbNodeKind::kCa;
  uint64_t peer_guid = 0;
  int32_t peer_port = 0;
  int32_t lanes = 0;      // 0: not given
  double speed_gbps = 0;  // per cable (lanes x lane rate); 0: not given
  int32_t line = 0;
};

struct IbNode {
  IbNodeKind kind = IbNodeKind::kCa;
  uint64_t guid = 0;            // from the quoted "S-<guid>" / "H-<guid>" id
  uint64_t sys_image_guid = 0;  // 0: not given
  int32_t num_ports = 0;
  std::string description;    // NodeDescription, without quotes
  int32_t lid = -1;           // base LID from the comment, -1 if absent
  int32_t line = 0;           // line of the header
  std::vector<IbPort> ports;  // in the dump's order
};

// Reads every record of `text`. Fails with InvalidArgument naming `source_name`, the line
// and what was expected on a line that is none of comment, key=value, node header or port
// line; on a port line outside a record, a port number listed twice in one record or
// beyond the header's port count, a GUID with two records, or a dump without records.
absl::StatusOr<std::vector<IbNode>> ReadIbnetdiscoverRecords(absl::string_view text,
                                                             absl::string_view source_name);

// Returns the rate of one cable for a width x speed token such as "4xNDR" (400 Gb/s,
// lanes 4); false if the token is not one.
bool ParseIbWidthSpeed(absl::string_view token, int32_t& lanes, double& speed_gbps);

}  // namespace topoplace::discovery

#endif  // TOPOPLACE_TOPOLOGY_DISCOVERY_IBNETDISCOVER_RECORDS_H_
