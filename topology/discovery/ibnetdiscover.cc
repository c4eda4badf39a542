#include "topology/discovery/ibnetdiscover.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "topology/discovery/grouped_warning.h"
#include "topology/discovery/ibnetdiscover_cas.h"
#include "topology/discovery/ibnetdiscover_records.h"
#include "topology/discovery/read_file.h"

namespace topoplace::discovery {
namespace {

// The model's name of the SHARP aggregation node with node GUID `guid`.
std::string AggregationNodeName(uint64_t guid) { return absl::StrCat("an-", GuidHex(guid)); }

class IbFactsBuilder {
 public:
  IbFactsBuilder(const std::vector<IbNode>& nodes, absl::string_view source,
                 const IbnetdiscoverOptions& options)
      : nodes_(nodes), source_(source), options_(options) {
    index_.reserve(nodes_.size());
    for (size_t i = 0; i < nodes_.size(); ++i) index_[nodes_[i].guid] = i;
  }

  FabricFacts Build() && {
    NameSwitches();
    NoteRouters();
    CaIdentities cas = IdentifyCas(nodes_, options_, source_);
    ca_model_ = std::move(cas.by_guid);
    AddLinks();
    AddGroupedWarning(facts_.warnings, "switches named by GUID (no usable NodeDescription)",
                      guid_named_switches_);
    for (std::string& w : cas.warnings) facts_.warnings.push_back(std::move(w));
    AddUnattributedWarning();
    AddGroupedWarning(facts_.warnings,
                      "SHARP aggregation nodes kept as in-network compute of their switch (not "
                      "hosts)",
                      aggregation_nodes_);
    AddGroupedWarning(facts_.warnings,
                      "management servers (UFM, subnet manager) left out of the compute fabric",
                      management_);
    AddGroupedWarning(facts_.warnings, "routers (Rt records) are not modelled", routers_);
    AddGroupedWarning(facts_.warnings,
                      "ports cabled to a GUID that has no record (truncated dump?) left out",
                      dangling_);
    AddGroupedWarning(facts_.warnings, "ports disagree about their peer; kept the first",
                      inconsistent_);
    AddGroupedWarning(facts_.warnings,
                      "cables whose two ends report different rates; kept the first",
                      rate_mismatches_);
    return std::move(facts_);
  }

 private:
  std::string Where(int line) const { return absl::StrCat(source_, ":", line); }

  void NameSwitches() {
    absl::flat_hash_map<std::string, int> uses;
    std::vector<std::pair<size_t, std::string>> candidates;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const IbNode& node = nodes_[i];
      if (node.kind != IbNodeKind::kSwitch) continue;
      std::string name;
      absl::string_view desc = node.description;
      if (absl::StartsWith(desc, "MF0;")) {
        desc.remove_prefix(4);
        name = SafeName(desc.substr(0, desc.find(':')));
      } else if (!IsFactoryDescription(desc)) {
        name = SafeName(desc);
      }
      if (!name.empty()) ++uses[name];
      candidates.emplace_back(i, std::move(name));
    }
    for (auto& [i, name] : candidates) {
      const IbNode& node = nodes_[i];
      if (name.empty() || uses[name] > 1) {
        const std::string guid_name = absl::StrCat("S-", GuidHex(node.guid));
        guid_named_switches_.push_back(
            absl::StrCat(guid_name, " ('", node.description, "', ", Where(node.line), ")"));
        name = guid_name;
      }
      switch_name_[node.guid] = name;
      facts_.switches.push_back(SwitchFact{.name = name, .origin = Where(node.line)});
    }
  }

  void NoteRouters() {
    for (const IbNode& node : nodes_) {
      if (node.kind != IbNodeKind::kRouter) continue;
      routers_.push_back(absl::StrCat("R-", GuidHex(node.guid), " (", Where(node.line), ")"));
    }
  }

  // One warning for every unattributed HCA, grouped by leaf: the operator walks to a leaf.
  void AddUnattributedWarning() {
    if (facts_.unattributed_nics.empty()) return;
    std::vector<std::string> leaves;
    absl::flat_hash_map<std::string, size_t> item_of_leaf;
    for (const UnattributedNicFact& nic : facts_.unattributed_nics) {
      auto [it, inserted] = item_of_leaf.try_emplace(nic.switch_name, leaves.size());
      if (inserted) leaves.push_back(absl::StrCat(nic.switch_name, ":"));
      absl::StrAppend(&leaves[it->second], " ", nic.name, " (port ", nic.port, ")");
    }
    AddGroupedWarning(facts_.warnings,
                      absl::StrCat("leaves hold ", facts_.unattributed_nics.size(),
                                   " HCAs that no NodeDescription, agent report or system image "
                                   "GUID places in a host; kept as unattributed NICs, not hosts"),
                      leaves);
  }

  // The fact end for port `port` of `node`; false if the node is left out of the facts.
  bool EndOf(const IbNode& node, int32_t port, PortRef& end) {
    if (node.kind == IbNodeKind::kSwitch) {
      end = PortRef{
          .node = switch_name_[node.guid], .port = absl::StrCat(port), .role = NodeRole::kSwitch};
      return true;
    }
    if (node.kind == IbNodeKind::kRouter) return false;
    const CaModel& model = ca_model_[node.guid];
    if (model.role != CaRole::kHost) return false;
    end = PortRef{.node = model.host,
                  .port = model.multi_port ? absl::StrCat(model.hca, "-p", port) : model.hca,
                  .role = NodeRole::kHost};
    return true;
  }

  void NoteLeftOutCa(const IbNode& ca, int32_t ca_port, const IbNode& sw, int32_t sw_port) {
    const CaModel& model = ca_model_[ca.guid];
    if (model.role == CaRole::kHost) return;  // nothing to note (and 100k names not built)
    if (model.role == CaRole::kUnattributed) {
      facts_.unattributed_nics.push_back(UnattributedNicFact{
          .name = absl::StrCat("H-", GuidHex(ca.guid), model.multi_port ? "-p" : "",
                               model.multi_port ? absl::StrCat(ca_port) : ""),
          .switch_name = switch_name_[sw.guid],
          .origin = Where(ca.line),
          .port = absl::StrCat(sw_port)});
      return;
    }
    const std::string where = absl::StrCat("H-", GuidHex(ca.guid), " '", ca.description, "' on ",
                                           switch_name_[sw.guid], " port ", sw_port);
    if (model.role == CaRole::kAggregationNode) {
      aggregation_nodes_.push_back(where);
      facts_.aggregation_nodes.push_back(AggregationNodeFact{.name = AggregationNodeName(ca.guid),
                                                             .switch_name = switch_name_[sw.guid],
                                                             .origin = Where(ca.line)});
    }
    if (model.role == CaRole::kManagement) management_.push_back(where);
  }

  // A cable seen but left out (to an aggregation node, a management server, a router).
  static constexpr size_t kNotModelled = SIZE_MAX;

  void AddLinks() {
    // Each cable appears on both of its ports; key it by both ends.
    using End = std::pair<uint64_t, int32_t>;
    absl::flat_hash_map<End, End> peer_of;
    absl::flat_hash_map<std::pair<End, End>, size_t> link_of;  // (lower, upper) -> link
    absl::flat_hash_map<std::string, size_t> host_index;
    // Sized up front: rehashing and moving LinkFacts dominated 100k-HCA imports.
    size_t ports = 0;
    for (const IbNode& node : nodes_) ports += node.ports.size();
    peer_of.reserve(ports);
    link_of.reserve(ports / 2 + 1);
    facts_.links.reserve(ports / 2 + 1);
    for (const IbNode& node : nodes_) {
      for (const IbPort& port : node.ports) {
        const End self{node.guid, port.port};
        const End peer{port.peer_guid, port.peer_port};
        auto peer_node = index_.find(port.peer_guid);
        if (peer_node == index_.end()) {
          dangling_.push_back(absl::StrCat(Where(port.line), " -> ", GuidHex(port.peer_guid)));
          continue;
        }
        const IbNode& other = nodes_[peer_node->second];
        const std::pair<End, End> cable = std::minmax(self, peer);
        if (auto known = link_of.find(cable); known != link_of.end()) {
          if (known->second == kNotModelled) continue;
          LinkFact& link = facts_.links[known->second];
          if (link.speed_gbps <= 0 && port.speed_gbps > 0) {
            link.speed_gbps = port.speed_gbps;
            link.lanes = port.lanes;
          } else if (port.speed_gbps > 0 && port.speed_gbps != link.speed_gbps) {
            rate_mismatches_.push_back(absl::StrFormat("%s (%g Gb/s) vs %s (%g Gb/s)", link.origin,
                                                       link.speed_gbps, Where(port.line),
                                                       port.speed_gbps));
          }
          continue;
        }
        if (!CheckPeer(self, peer, peer_of, port.line) ||
            !CheckPeer(peer, self, peer_of, port.line)) {
          continue;
        }
        peer_of[self] = peer;
        peer_of[peer] = self;
        if (node.kind == IbNodeKind::kCa && other.kind == IbNodeKind::kSwitch) {
          NoteLeftOutCa(node, port.port, other, port.peer_port);
        } else if (other.kind == IbNodeKind::kCa && node.kind == IbNodeKind::kSwitch) {
          NoteLeftOutCa(other, port.peer_port, node, port.port);
        }
        LinkFact link;
        if (!EndOf(node, port.port, link.a) || !EndOf(other, port.peer_port, link.b)) {
          link_of[cable] = kNotModelled;
          continue;
        }
        link.speed_gbps = port.speed_gbps;
        link.lanes = port.lanes > 0 ? port.lanes : 4;
        link.origin = Where(port.line);
        for (const PortRef* end : {&link.a, &link.b}) {
          if (end->role != NodeRole::kHost) continue;
          auto [it, inserted] = host_index.try_emplace(end->node, facts_.hosts.size());
          if (inserted) {
            HostFact& host = facts_.hosts.emplace_back();
            host.name = end->node;
            host.origin = link.origin;
          }
          facts_.hosts[it->second].nics.push_back(
              NicFact{.name = end->port, .speed_gbps = port.speed_gbps});
        }
        link_of[cable] = facts_.links.size();
        facts_.links.push_back(std::move(link));
      }
    }
  }

  // False (and a warning) if `self` already has a peer other than `peer`.
  template <typename End, typename Map>
  bool CheckPeer(const End& self, const End& peer, const Map& peer_of, int line) {
    auto it = peer_of.find(self);
    if (it == peer_of.end() || it->second == peer) return true;
    inconsistent_.push_back(absl::StrCat(
        Where(line), ": ", GuidHex(self.first), "[", self.second, "] -> ", GuidHex(peer.first), "[",
        peer.second, "] but already -> ", GuidHex(it->second.first), "[", it->second.second, "]"));
    return false;
  }

  const std::vector<IbNode>& nodes_;
  absl::string_view source_;
  const IbnetdiscoverOptions& options_;
  absl::flat_hash_map<uint64_t, size_t> index_;
  absl::flat_hash_map<uint64_t, std::string> switch_name_;
  absl::flat_hash_map<uint64_t, CaModel> ca_model_;
  FabricFacts facts_;
  std::vector<std::string> guid_named_switches_, aggregation_nodes_, management_, routers_,
      dangling_, inconsistent_, rate_mismatches_;
};

}  // namespace

bool IsFactoryDescription(absl::string_view description) {
  const absl::string_view desc = absl::StripAsciiWhitespace(description);
  if (desc.empty()) return true;
  if (desc.size() > 2 && desc[0] == 'M' && desc[1] == 'T' &&
      absl::ascii_isdigit(static_cast<unsigned char>(desc[2]))) {
    return true;
  }
  static constexpr absl::string_view kVendorWords[] = {"mellanox technologies",
                                                       "nvidia technologies",
                                                       "voltaire",
                                                       "infinihost",
                                                       "connectx",
                                                       "infiniscale",
                                                       "switch-ib",
                                                       "switchx",
                                                       "quantum",
                                                       "bluefield",
                                                       "qlogic",
                                                       "intel omni"};
  return std::any_of(std::begin(kVendorWords), std::end(kVendorWords),
                     [desc](absl::string_view w) { return ContainsLower(desc, w); });
}

absl::StatusOr<FabricFacts> ParseIbnetdiscover(absl::string_view text,
                                               absl::string_view source_name,
                                               const IbnetdiscoverOptions& options) {
  TP_ASSIGN_OR_RETURN(const std::vector<IbNode> nodes, ReadIbnetdiscoverRecords(text, source_name));
  return IbFactsBuilder(nodes, source_name, options).Build();
}

absl::StatusOr<FabricFacts> LoadIbnetdiscoverFile(const std::string& path,
                                                  const IbnetdiscoverOptions& options) {
  TP_ASSIGN_OR_RETURN(const std::string text, ReadWholeFile(path));
  return ParseIbnetdiscover(text, path, options);
}

}  // namespace topoplace::discovery
