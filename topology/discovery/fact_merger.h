// Combines the facts of several discovery sources into one consistent set.
//
//   FactMerger merger;
//   merger.Add(std::move(ib_facts));
//   merger.Add(std::move(lldp_facts));
//   FabricFacts merged = std::move(merger).Resolve();
//   TP_RETURN_IF_ERROR(ApplyFacts(merged, builder));
//
// Merging never fails: every conflict (a port linked to two different peers, a name
// that is a host for one source and a switch for another, a NIC speed that differs)
// keeps the first fact and adds a warning naming both origins. Not thread-safe.
#ifndef TOPOPLACE_TOPOLOGY_DISCOVERY_FACT_MERGER_H_
#define TOPOPLACE_TOPOLOGY_DISCOVERY_FACT_MERGER_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "topology/discovery/facts.h"

namespace topoplace::discovery {

class FactMerger {
 public:
  // Adds one source's facts. Hosts and switches with the same name are the same node.
  void Add(FabricFacts facts);

  // Finishes the merge:
  // - decides the role of nodes only seen as link ends (LLDP without capabilities):
  //   a node cabled to a host is a switch; one still unknown is taken for a host;
  // - drops duplicate links (both sides of a cable report it) and conflicting ones;
  // - orders each host's NICs naturally, keeps the NICs of a host that most hosts share
  //   at their index by adding unseen ones as placeholders, and moves NICs that sit on a
  //   separate network (storage, management) after the compute NICs.
  // Every such decision leaves a warning.
  FabricFacts Resolve() &&;

 private:
  // Resolve's phases, in order.
  // Each node's role: declared hosts and switches first (a name declared as both stays a
  // host), then what link ends claim, then a node cabled to a host is a switch; the rest
  // are taken for hosts (with one warning naming them).
  absl::flat_hash_map<std::string, NodeRole> ResolveRoles();
  // The links with their ends' roles, one per cable: a port or NIC cabled twice keeps its
  // first peer; host-to-host cables and host ends naming no NIC are dropped (warned).
  std::vector<LinkFact> OneLinkPerCable(absl::flat_hash_map<std::string, NodeRole>& role);
  // Hosts (with their NICs) and switches that only `links` named.
  void AddNodesOnlyLinksName(const std::vector<LinkFact>& links);
  HostFact& HostNamed(const std::string& name, const std::string& origin);
  NicFact& NicNamed(HostFact& host, const std::string& nic);
  void MergeHost(HostFact host);

  std::vector<HostFact> hosts_;
  absl::flat_hash_map<std::string, size_t> host_index_;
  std::vector<SwitchFact> switches_;
  absl::flat_hash_map<std::string, size_t> switch_index_;
  std::vector<LinkFact> links_;
  std::vector<AggregationNodeFact> aggregation_nodes_;
  absl::flat_hash_map<std::string, size_t> aggregation_index_;
  std::vector<UnattributedNicFact> unattributed_nics_;
  absl::flat_hash_set<std::string> unattributed_names_;
  std::vector<std::string> warnings_;
};

}  // namespace topoplace::discovery

#endif  // TOPOPLACE_TOPOLOGY_DISCOVERY_FACT_MERGER_H_
