// The phases of hierarchy inference (hierarchy_inference.h), one function each, in the
// order HierarchyInference::Run calls them; each reads what the ones before it derived.
// They work on the Fabric's tables (plain structs), so tests can call one phase on a few
// hand-made switches, NICs or hosts. Internal to topology/model.
//
//   const SwitchGraph graph = ReadSwitchGraph(switches.size(), links);
//   const int32_t max_tier = InferTiers(graph, switches, warnings);   // 1
//   FindNicLeaves(links, hosts, nics, warnings);                       // 2
//   ...
//
// Every phase is linear in what it reads (the block merge is quadratic in the number of
// distinct leaf sets, which is the number of blocks plus partial hosts' sets).
#ifndef TOPOPLACE_TOPOLOGY_MODEL_HIERARCHY_PHASES_H_
#define TOPOPLACE_TOPOLOGY_MODEL_HIERARCHY_PHASES_H_

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "topology/model/fabric.h"

namespace topoplace::hierarchy {

// Most switch tiers the hierarchy has. Clos fabrics built today have two or three (a
// 100,000-GPU three-tier fabric among them); super-spine and multi-plane designs add one or
// two. Switches farther from every host are left out with a warning.
inline constexpr int32_t kMaxSwitchTiers = 8;

// Lines for Fabric::warnings(); many objects of one kind with one problem are one line.
using Warnings = std::vector<std::string>;

// The switch-to-switch graph, read off the links once, for Boost.Graph's searches: vertex s
// is switch s, an edge per switch-to-switch link in link order.
struct SwitchGraph {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
  Graph links;
  std::vector<bool> touches_nic;  // per switch: a NIC is cabled to it
  // The switches linked to `s`, once per link, in link order.
  std::vector<SwitchId> Neighbours(SwitchId s) const;
};
// Precondition: every link's switch ends are below num_switches.
SwitchGraph ReadSwitchGraph(size_t num_switches, const std::vector<Link>& links);

// 1. Sets every switch's tier: 1 for a leaf (it touches a NIC), else 1 + its distance
// from a leaf; 0 for a switch that reaches no host or lies more than kMaxSwitchTiers above
// one (left out of the hierarchy). Returns the highest tier. Warns about those switches
// and about declared tiers the graph contradicts.
int32_t InferTiers(const SwitchGraph& graph, std::vector<Switch>& switches, Warnings& warnings);

// 2. Sets every NIC's leaf: the switch it is cabled to (-1 if none; a NIC cabled to two
// switches keeps the first). Warns about both cases.
void FindNicLeaves(const std::vector<Link>& links, const std::vector<Host>& hosts,
                   std::vector<Nic>& nics, Warnings& warnings);

// 3. Rails: a leaf's rail is the NIC index most of its NICs have; a NIC's rail is its
// leaf's. Fills `rails` with each rail's leaves. Returns whether the fabric is
// rail-optimised (no leaf receives NICs of several indexes). Warns about mixed leaves and
// about NICs on another rail's leaf (crossed cables).
bool AssignRails(const std::vector<Host>& hosts, std::vector<Switch>& switches,
                 std::vector<Nic>& nics, std::vector<Rail>& rails, Warnings& warnings);

// 4. Blocks: hosts that reach exactly the same set of leaves of their main network (an
// island with at most half the NIC cables of the largest is a separate network, such as
// storage); a host that reaches a strict subset of one block's leaves joins it. Sets each
// host's block and each leaf's block (-1 when it serves several), fills `blocks`. Warns
// about isolated hosts, partial hosts and blocks missing a rail.
void FormBlocks(const SwitchGraph& graph, const std::vector<Rail>& rails,
                const std::vector<Nic>& nics, std::vector<Switch>& switches,
                std::vector<Host>& hosts, std::vector<Block>& blocks, Warnings& warnings);

// 5. For each tier k in 1..max_tier (index k - 1) and each leaf: a dense id shared by the
// leaves joined through switches of tiers 1..k; -1 for other switches.
std::vector<std::vector<int32_t>> JoinTierDomains(const SwitchGraph& graph,
                                                  const std::vector<Switch>& switches,
                                                  int32_t max_tier);

// 6. Pods: blocks whose leaves meet at the spine tier (the leaf tier in one-tier
// fabrics). Sets each block's and host's pod, fills `pods`. `leaf_domain` is phase 5's.
void FormPods(const std::vector<std::vector<int32_t>>& leaf_domain, std::vector<Block>& blocks,
              std::vector<Host>& hosts, std::vector<Pod>& pods);

// 7. NVLink domains: hosts declaring one name share a domain, every other host is one
// alone. Sets each host's domain id; returns the domains' hosts. Warns about domains that
// span blocks or have fewer hosts than the largest.
std::vector<std::vector<HostId>> FormNvlinkDomains(std::vector<Host>& hosts, Warnings& warnings);

// 8. Per tier 1..max_tier: its switches, and the bandwidth of its links towards hosts and
// towards higher tiers.
std::vector<TierStats> SumTierBandwidth(const std::vector<Switch>& switches,
                                        const std::vector<Link>& links, int32_t max_tier);

}  // namespace topoplace::hierarchy

#endif  // TOPOPLACE_TOPOLOGY_MODEL_HIERARCHY_PHASES_H_
