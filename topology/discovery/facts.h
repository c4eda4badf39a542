// Facts: what one discovery source learned, before it becomes part of a Fabric.
//
// Every source (ibnetdiscover, LLDP, agent reports, spec files) turns its input into a
// FabricFacts value: hosts with their NICs and GPUs, switches, and links between named
// ports, each remembering where it came from ("dump.txt:42"). FactMerger
// (fact_merger.h) combines the facts of several sources, turning conflicts into
// warnings, and ApplyFacts adds the result to one FabricBuilder.
//
// Facts name things instead of holding builder ids, so that sources stay independent of
// each other and of the order in which they are merged.
#ifndef TOPOPLACE_TOPOLOGY_DISCOVERY_FACTS_H_
#define TOPOPLACE_TOPOLOGY_DISCOVERY_FACTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "topology/model/fabric.h"
#include "topology/model/fabric_builder.h"

namespace topoplace::discovery {

// What a source knows about the kind of a node it names.
enum class NodeRole : uint8_t { kUnknown, kHost, kSwitch };
// "host", "switch" or "unknown".
absl::string_view NodeRoleName(NodeRole role);

struct NicFact {
  std::string name = {};     // "mlx5_0", "eth1"; unique per host
  double speed_gbps = 0;     // 0: unknown
  bool placeholder = false;  // added so that the other NICs keep their index (not seen)
};

struct GpuFact {
  int32_t index = 0;     // local CUDA-order index
  std::string nic = {};  // name of the NIC under the same PCIe switch, or empty
  int32_t numa = -1;
};

struct HostFact {
  std::string name = {};
  std::string nvlink_domain = {};  // empty: unknown / alone
  std::string gpu_model = {};      // empty: unknown
  std::vector<NicFact> nics = {};
  std::vector<GpuFact> gpus = {};
  std::string origin = {};  // "file:line" of the first mention
};

struct SwitchFact {
  std::string name = {};
  int32_t declared_tier = 0;  // 0: let inference decide
  std::string origin = {};
};

// Something cabled to switch `switch_name` that is no host (see SwitchAttachment in
// fabric.h): a SHARP aggregation node, or an HCA no source attributes to a host.
struct SwitchAttachmentFact {
  std::string name = {};
  std::string switch_name = {};
  std::string origin = {};
  std::string port = {};  // the switch port, if known
};
using AggregationNodeFact = SwitchAttachmentFact;
using UnattributedNicFact = SwitchAttachmentFact;

// One end of a cable: a switch port ("leaf1", "swp3") or a host NIC ("h1", "mlx5_0").
// `port` may be empty for switch ends when the source does not know port numbers
// (spec files).
struct PortRef {
  std::string node = {};
  std::string port = {};
  NodeRole role = NodeRole::kUnknown;
};

struct LinkFact {
  PortRef a = {};
  PortRef b = {};
  double speed_gbps = 0;  // 0: unknown
  int32_t lanes = 4;
  int32_t count = 1;
  LinkState state = LinkState::kUp;
  std::string origin = {};  // "file:line" or "file: field path"
};

// Everything one source (or several, once merged) knows.
struct FabricFacts {
  std::vector<HostFact> hosts = {};
  std::vector<SwitchFact> switches = {};
  std::vector<LinkFact> links = {};
  std::vector<AggregationNodeFact> aggregation_nodes = {};
  std::vector<UnattributedNicFact> unattributed_nics = {};
  std::vector<std::string> warnings = {};
};

// Speed assumed for links and NICs whose speed no source reported.
inline constexpr double kDefaultSpeedGbps = 100;

// Adds resolved facts to `builder`: hosts and switches in natural name order (so "n2"
// sorts before "n10"), each host's NICs in the order given (their position is their
// rail index; FactMerger::Resolve orders them), GPUs, then links; parallel switch-switch cables of
// equal speed become one link with a count. Precondition: every link end has a known role and names
// a node of that role (FactMerger::Resolve guarantees this). On error the builder may hold part of
// the facts; callers discard it.
absl::Status ApplyFacts(const FabricFacts& facts, FabricBuilder& builder);

// Turns a built Fabric (e.g. a loaded spec file) back into facts, so that it can be
// merged with discovered ones. Link ends carry no port names.
FabricFacts FactsFromFabric(const Fabric& fabric, absl::string_view origin);

// Compares names so that embedded numbers sort numerically ("mlx5_2" < "mlx5_10").
bool NaturalLess(absl::string_view a, absl::string_view b);

}  // namespace topoplace::discovery

#endif  // TOPOPLACE_TOPOLOGY_DISCOVERY_FACTS_H_
