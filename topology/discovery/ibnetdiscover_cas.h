// Which host each CA of an ibnetdiscover dump belongs to. Internal to the ibnetdiscover
// source (ibnetdiscover.h describes the rules an operator sees).
//
// A CA is placed in a host, in order of trust, by an agent report that lists its node or
// port GUID, by its NodeDescription ("<host> <hca>"), or by sharing a system image GUID
// (different from its own GUID) with a CA placed either way. A CA none of them places is
// unattributed: it stays on its leaf, and is no host. Hosts whose descriptions name them
// alike ("localhost") but whose HCAs belong to different systems (system image GUIDs, or
// leaves no other host joins) are split and renamed "<name>-<system GUID>".
#ifndef TOPOPLACE_TOPOLOGY_DISCOVERY_IBNETDISCOVER_CAS_H_
#define TOPOPLACE_TOPOLOGY_DISCOVERY_IBNETDISCOVER_CAS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "topology/discovery/ibnetdiscover.h"
#include "topology/discovery/ibnetdiscover_records.h"

namespace topoplace::discovery {

// How a CA record is modelled.
enum class CaRole : uint8_t { kHost, kAggregationNode, kManagement, kUnattributed };

struct CaModel {
  CaRole role = CaRole::kUnattributed;
  std::string host;  // kHost only
  std::string hca;   // NIC name stem (a multi-port CA adds "-p<port>")
  bool multi_port = false;
};

// The model of every CA record (by node GUID) and the warnings its decisions raise.
struct CaIdentities {
  absl::flat_hash_map<uint64_t, CaModel> by_guid;
  std::vector<std::string> warnings;
};

// Decides every CA's role and host; `source` prefixes the "file:line" of each warning item.
CaIdentities IdentifyCas(const std::vector<IbNode>& nodes, const IbnetdiscoverOptions& options,
                         absl::string_view source);

// Helpers shared with ibnetdiscover.cc.
// Case-insensitive substring test; `needle` must already be lower case.
bool ContainsLower(absl::string_view haystack, absl::string_view needle);
// A GUID as 16 lower-case hex digits.
std::string GuidHex(uint64_t guid);
// `name` trimmed, with '/' (which separates host and NIC in "host/nic") replaced by '-'.
std::string SafeName(absl::string_view name);

}  // namespace topoplace::discovery

#endif  // TOPOPLACE_TOPOLOGY_DISCOVERY_IBNETDISCOVER_CAS_H_
