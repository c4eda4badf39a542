// The cluster network as one immutable, versioned snapshot: hosts, their GPUs and NICs,
// switches and links, plus the hierarchy derived from the graph alone (switch tiers,
// rails, blocks, pods, NVLink domains) and per-host coordinates.
//
// A Fabric is made by FabricBuilder (topology/model/fabric_builder.h) and never changes
// afterwards, so it is safe to share between threads without locking:
//
//   TP_ASSIGN_OR_RETURN(FabricPtr fabric, std::move(builder).Build());
//   Tier tier = fabric->GpuTier(a, b);   // O(1): compares precomputed coordinates
//
// Conventions that are easy to get wrong:
// - Tier 1 is the leaf, the switch closest to the hosts; 2 is the spine; 3 the core.
//   Tier 0 (Tier::kNvlink) means "inside one NVLink domain, no network switch at all".
// - A rail is the set of leaves that the NIC with the same index in every host lands on;
//   NIC index is the NIC's position in its host's NIC list.
// - A block (scalable unit, server group) is the set of hosts that reach exactly the same
//   set of leaves. A pod is the set of blocks whose leaves meet under one spine group.
#ifndef TOPOPLACE_TOPOLOGY_MODEL_FABRIC_H_
#define TOPOPLACE_TOPOLOGY_MODEL_FABRIC_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace topoplace {

// Dense indices into the Fabric's typed tables. -1 means "none".
using HostId = int32_t;
using GpuId = int32_t;
using NicId = int32_t;
using SwitchId = int32_t;
using LinkId = int32_t;

// The highest layer a path between two endpoints has to climb.
enum class Tier : uint8_t {
  kNvlink = 0,  // same NVLink domain: no network switch
  kLeaf = 1,    // one leaf switch
  kSpine = 2,   // leaf - spine - leaf
  kCore = 3,    // leaf - spine - core - spine - leaf
  kUnreachable = 255,
};
inline constexpr int kMaxSwitchTier = 3;

// Returns "nvlink", "leaf", "spine", "core" or "unreachable".
absl::string_view TierName(Tier tier);

// Number of switches a packet crosses on a shortest path that climbs to `tier`
// (0 for NVLink, 1 for leaf, 3 for spine, 5 for core); -1 when unreachable.
int SwitchHops(Tier tier);

enum class LinkState : uint8_t { kUp, kDegraded, kDown };
absl::string_view LinkStateName(LinkState state);

struct Host {
  std::string name;
  std::string nvlink_domain;  // as declared; empty means "this host alone"
  // The GPUs' model as declared or discovered ("H100", "NVIDIA GB200"; empty: unknown):
  // which constants the step-time model uses (scheduler/steptime/gpu_models.h).
  std::string gpu_model;
  std::vector<GpuId> gpus;  // in local index order
  std::vector<NicId> nics;  // position in this list is the NIC index (rail index)
  // Derived.
  int32_t block = -1;
  int32_t pod = -1;
  int32_t nvlink_domain_id = -1;
};

struct Gpu {
  HostId host = -1;
  int32_t index = 0;  // local index inside the host (CUDA device order)
  NicId nic = -1;     // the NIC under the same PCIe switch (GPUDirect RDMA), or -1
  int32_t numa = -1;
};

struct Nic {
  HostId host = -1;
  std::string name;  // e.g. "mlx5_0"
  double speed_gbps = 0;
  // Derived.
  int32_t index = -1;  // position in the host's NIC list
  SwitchId leaf = -1;  // the leaf it is cabled to, -1 if uncabled
  int32_t rail = -1;   // the rail of that leaf
};

struct Switch {
  std::string name;
  int32_t declared_tier = 0;  // 0: not declared, inferred
  // Derived.
  int32_t tier = 0;    // 1 leaf, 2 spine, 3 core; 0 if connected to no host at any depth
  int32_t rail = -1;   // leaves of a rail-optimised fabric: the NIC index landing here
  int32_t block = -1;  // leaves: the block they serve (-1 if hosts of several blocks)
};

// One end of a network link: a NIC or a switch.
struct Endpoint {
  enum class Kind : uint8_t { kNic, kSwitch };
  Kind kind = Kind::kSwitch;
  int32_t id = -1;
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
};

struct Link {
  Endpoint a;
  Endpoint b;
  double speed_gbps = 0;  // per cable
  int32_t lanes = 4;      // physical lanes per cable (IB width 4x, etc.)
  int32_t count = 1;      // parallel cables bundled between the same two ends
  LinkState state = LinkState::kUp;
  double bandwidth_gbps() const { return speed_gbps * count; }
};

// Something cabled to a switch that is not a host and not a graph vertex, so jobs cannot
// run on it:
// - a SHARP aggregation node: in-network compute (reduction) inside its switch; it only
//   says which switches can reduce;
// - an unattributed NIC: an HCA that no NodeDescription and no agent report places in a
//   host (factory-default description); counted on its leaf so an operator can find it.
struct SwitchAttachment {
  std::string name;         // "an-a000000000000004", "H-c000000000000001" (unique per kind)
  SwitchId switch_id = -1;  // the switch it sits in (cabled to)
  std::string port = {};    // the switch port, when the source knows it
};
using AggregationNode = SwitchAttachment;
using UnattributedNic = SwitchAttachment;

struct Block {
  int32_t pod = -1;
  std::vector<HostId> hosts;
  std::vector<SwitchId> leaves;
};

struct Pod {
  std::vector<int32_t> blocks;
};

struct Rail {
  std::vector<SwitchId> leaves;
};

// Aggregate of one switch tier, for summaries.
struct TierStats {
  int32_t tier = 0;
  int32_t switches = 0;
  double down_gbps = 0;  // towards hosts
  double up_gbps = 0;    // towards higher tiers
  // down/up; nullopt for the top tier (nothing above it).
  std::optional<double> oversubscription() const;
};

class Fabric;
using FabricPtr = std::shared_ptr<const Fabric>;

// Immutable; thread-safe for concurrent readers. Build with FabricBuilder.
class Fabric {
 public:
  const std::string& name() const { return name_; }
  // Monotonic version of this snapshot; the store bumps it on every accepted change.
  uint64_t version() const { return version_; }

  const std::vector<Host>& hosts() const { return hosts_; }
  const std::vector<Gpu>& gpus() const { return gpus_; }
  const std::vector<Nic>& nics() const { return nics_; }
  const std::vector<Switch>& switches() const { return switches_; }
  const std::vector<Link>& links() const { return links_; }
  const std::vector<Block>& blocks() const { return blocks_; }
  const std::vector<Pod>& pods() const { return pods_; }
  const std::vector<Rail>& rails() const { return rails_; }
  // SHARP aggregation nodes, in the order added.
  const std::vector<AggregationNode>& aggregation_nodes() const { return aggregation_nodes_; }
  // HCAs on leaves that belong to no known host, in the order added. They are no part of
  // hosts, blocks, rails or exports.
  const std::vector<UnattributedNic>& unattributed_nics() const { return unattributed_nics_; }
  // Hosts grouped by NVLink domain; a host with no declared domain is alone in its own.
  const std::vector<std::vector<HostId>>& nvlink_domains() const { return nvlink_domains_; }
  // Per host id, hosts()[h]'s derived place and its GPU count, 16 bytes a host: what the
  // loops over every host of a placement read (Inventory::Build), without a Host's
  // strings and lists between one host's facts and the next's.
  struct HostPlace {
    int32_t block = -1, pod = -1, nvlink_domain = -1;
    int32_t gpus = 0;
  };
  const std::vector<HostPlace>& host_places() const { return host_places_; }
  // Per switch tier (index 0 is tier 1); only tiers that exist.
  const std::vector<TierStats>& tier_stats() const { return tier_stats_; }
  // Highest switch tier present (0 if there are no switches).
  int32_t max_tier() const { return static_cast<int32_t>(tier_stats_.size()); }
  // True when every leaf receives NICs of one index only.
  bool rail_optimized() const { return rail_optimized_; }
  // Problems found while building that did not stop it (conflicts, uncabled NICs, ...).
  const std::vector<std::string>& warnings() const { return warnings_; }

  // Name lookups; nullopt if absent. NICs are named "host/nic".
  std::optional<HostId> FindHost(absl::string_view name) const;
  std::optional<SwitchId> FindSwitch(absl::string_view name) const;
  std::optional<NicId> FindNic(absl::string_view host_slash_nic) const;
  // The GPU of local index `index` (CUDA device order) on host `host`.
  std::optional<GpuId> FindGpu(absl::string_view host, int32_t index) const;
  // "host/nic" for NICs, the switch name for switches.
  std::string EndpointName(Endpoint e) const;
  // "host/gpuN".
  std::string GpuName(GpuId gpu) const;

  // Highest tier a path between two NICs climbs. O(1). Preconditions: valid ids.
  Tier NicTier(NicId a, NicId b) const;
  // Highest tier a path between two GPUs climbs, each using its affine NIC. O(1).
  // Kept for callers that do not model rail-local (PXN) forwarding; see scheduler/.
  Tier GpuTier(GpuId a, GpuId b) const;
  // Number of switches between two GPUs (see SwitchHops); -1 if unreachable. O(1).
  int GpuHops(GpuId a, GpuId b) const { return SwitchHops(GpuTier(a, b)); }
  // Tier-k domain of a leaf (k in 1..max_tier): leaves with equal ids share a tier-k
  // switch group. Precondition: `leaf` is a tier-1 switch.
  int32_t LeafDomain(SwitchId leaf, int tier) const;

 private:
  friend class FabricBuilder;
  friend class HierarchyInference;
  Fabric() = default;

  std::string name_;
  uint64_t version_ = 1;
  std::vector<Host> hosts_;
  std::vector<Gpu> gpus_;
  std::vector<Nic> nics_;
  std::vector<Switch> switches_;
  std::vector<Link> links_;
  std::vector<Block> blocks_;
  std::vector<Pod> pods_;
  std::vector<Rail> rails_;
  std::vector<AggregationNode> aggregation_nodes_;
  std::vector<UnattributedNic> unattributed_nics_;
  std::vector<std::vector<HostId>> nvlink_domains_;
  std::vector<HostPlace> host_places_;
  std::vector<TierStats> tier_stats_;
  bool rail_optimized_ = false;
  std::vector<std::string> warnings_;

  absl::flat_hash_map<std::string, HostId> host_by_name_;
  absl::flat_hash_map<std::string, SwitchId> switch_by_name_;
  absl::flat_hash_map<std::string, NicId> nic_by_name_;
  absl::flat_hash_map<std::string, int32_t> aggregation_node_by_name_;
  absl::flat_hash_map<std::string, int32_t> unattributed_nic_by_name_;

  // leaf_domain_[k-1][leaf] for tiers k = 1..max_tier; -1 for non-leaves.
  std::vector<std::vector<int32_t>> leaf_domain_;
};

}  // namespace topoplace

#endif  // TOPOPLACE_TOPOLOGY_MODEL_FABRIC_H_
