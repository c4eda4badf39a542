// The probe peers file of `topoplace-agent probe`: which address each fabric NIC's
// probe responder listens on. One `host/nic ADDRESS[:PORT]` per line; `#` starts a
// comment; IPv6 addresses with a port are written [addr]:port.
//
//   TP_ASSIGN_OR_RETURN(PeerMap peers, ParsePeerMap(text, "peers.txt", 7471));
//
// Thread-safe (no state).
#ifndef TOPOPLACE_API_AGENT_PEER_MAP_H_
#define TOPOPLACE_API_AGENT_PEER_MAP_H_

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "telemetry/probe/transport.h"

namespace topoplace::agent {

using PeerMap = absl::flat_hash_map<std::string, telemetry::ProbePeer>;

// InvalidArgument names the source, line and problem.
absl::StatusOr<PeerMap> ParsePeerMap(absl::string_view text, absl::string_view source,
                                     int default_port);

}  // namespace topoplace::agent

#endif  // TOPOPLACE_API_AGENT_PEER_MAP_H_
