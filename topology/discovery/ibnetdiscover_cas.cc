#include "topology/discovery/ibnetdiscover_cas.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "topology/discovery/grouped_warning.h"

namespace topoplace::discovery {
namespace {

// What tells one system from another among CAs whose descriptions name the same host.
// Ordered by trust; `value` is a GUID or a leaf group id.
struct SystemKey {
  enum Kind : uint8_t { kReport, kSystemImage, kLeafGroup } kind = kLeafGroup;
  uint64_t value = 0;
  friend bool operator<(const SystemKey& a, const SystemKey& b) {
    return std::pair(a.kind, a.value) < std::pair(b.kind, b.value);
  }
};

// Union-find over switch GUIDs.
class LeafGroups {
 public:
  uint64_t Find(uint64_t x) {
    auto it = parent_.find(x);
    if (it == parent_.end() || it->second == x) return x;
    const uint64_t root = Find(it->second);
    parent_[x] = root;
    return root;
  }
  void Join(uint64_t a, uint64_t b) {
    a = Find(a);
    b = Find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  absl::flat_hash_map<uint64_t, uint64_t> parent_;
};

class CaIdentifier {
 public:
  CaIdentifier(const std::vector<IbNode>& nodes, const IbnetdiscoverOptions& options,
               absl::string_view source)
      : nodes_(nodes), options_(options), source_(source) {
    for (const std::string& marker : options.management_markers) {
      management_markers_.push_back(absl::AsciiStrToLower(marker));
    }
  }

  CaIdentities Run() && {
    ModelEach();
    SplitNamesakes();
    PlaceBySystemImage();
    Deduplicate();
    AddGroupedWarning(out_.warnings,
                      "HCAs with a factory-default NodeDescription placed in their host by GUID",
                      placed_by_guid_);
    AddGroupedWarning(out_.warnings,
                      "host names repeat on different systems (system image GUID or leaf group "
                      "differ); each kept as its own host, renamed",
                      renamed_);
    AddGroupedWarning(out_.warnings,
                      "HCAs repeat another HCA's NodeDescription; NIC name suffixed with the GUID",
                      duplicate_descriptions_);
    return std::move(out_);
  }

 private:
  std::string Where(int line) const { return absl::StrCat(source_, ":", line); }

  bool IsManagement(absl::string_view desc) const {
    return std::any_of(management_markers_.begin(), management_markers_.end(),
                       [desc](const std::string& m) { return ContainsLower(desc, m); });
  }

  // The CA's system image GUID when it tells a system apart (differs from its own GUID).
  static uint64_t SharedSystemImage(const IbNode& node) {
    return node.sys_image_guid != node.guid ? node.sys_image_guid : 0;
  }

  // The switch each CA's first cabled port lands on. Only needed (and, on 100k-CA dumps,
  // only paid for) when a name repeats or a factory-default CA may join a host.
  void FindLeaves() {
    if (!leaf_of_.empty()) return;
    for (const IbNode& node : nodes_) {
      for (const IbPort& port : node.ports) {
        if (node.kind == IbNodeKind::kSwitch && port.peer_kind == IbNodeKind::kCa) {
          leaf_of_.try_emplace(port.peer_guid, node.guid);
        } else if (node.kind == IbNodeKind::kCa && port.peer_kind == IbNodeKind::kSwitch) {
          leaf_of_.try_emplace(node.guid, port.peer_guid);
        }
      }
    }
  }

  const ReportedHca* Reported(const IbNode& node) const {
    if (options_.reported_hcas.empty()) return nullptr;
    if (auto it = options_.reported_hcas.find(node.guid); it != options_.reported_hcas.end()) {
      return &it->second;
    }
    for (const IbPort& port : node.ports) {
      if (port.port_guid == 0) continue;
      if (auto it = options_.reported_hcas.find(port.port_guid);
          it != options_.reported_hcas.end()) {
        return &it->second;
      }
    }
    return nullptr;
  }

  void ModelEach() {
    out_.by_guid.reserve(nodes_.size());
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const IbNode& node = nodes_[i];
      if (node.kind != IbNodeKind::kCa) continue;
      CaModel model;
      model.multi_port = node.ports.size() > 1;
      const absl::string_view desc = node.description;
      const ReportedHca* reported = Reported(node);
      if (ContainsLower(desc, "aggregation node")) {
        model.role = CaRole::kAggregationNode;
      } else if (IsManagement(desc)) {
        model.role = CaRole::kManagement;
      } else if (reported != nullptr) {
        model.role = CaRole::kHost;
        model.host = reported->host;
        model.hca = reported->device;
        by_report_.insert(node.guid);
        if (IsFactoryDescription(desc)) {
          placed_by_guid_.push_back(
              absl::StrCat(model.host, "/", model.hca, " (agent report, ", Where(node.line), ")"));
        }
      } else if (IsFactoryDescription(desc)) {
        factory_.push_back(i);
      } else {
        const absl::string_view trimmed = absl::StripAsciiWhitespace(desc);
        const size_t space = trimmed.find_first_of(" \t");
        model.role = CaRole::kHost;
        model.host = SafeName(trimmed.substr(0, space));
        model.hca = space == absl::string_view::npos ? "hca" : SafeName(trimmed.substr(space + 1));
      }
      if (model.role == CaRole::kHost) placed_.push_back(i);
      out_.by_guid[node.guid] = std::move(model);
    }
  }

  // Hosts named alike whose HCAs repeat a NIC name may be several systems. Tell them apart
  // by agent report, by system image GUID, else by the group of leaves the CA is cabled
  // into (leaves joined by hosts whose names do not repeat: a rail-optimised block).
  void SplitNamesakes() {
    absl::flat_hash_map<std::string, std::vector<size_t>> cas_of_host;
    absl::flat_hash_set<std::string> seen;
    std::vector<std::string> suspects;
    seen.reserve(placed_.size());
    for (size_t i : placed_) {
      const CaModel& m = out_.by_guid[nodes_[i].guid];
      if (!seen.insert(absl::StrCat(m.host, "/", m.hca)).second) suspects.push_back(m.host);
    }
    if (suspects.empty()) return;
    names_repeat_ = true;
    FindLeaves();
    const absl::flat_hash_set<std::string> suspect(suspects.begin(), suspects.end());
    LeafGroups groups;
    absl::flat_hash_map<std::string, uint64_t> first_leaf;
    for (size_t i : placed_) {
      const CaModel& m = out_.by_guid[nodes_[i].guid];
      auto leaf = leaf_of_.find(nodes_[i].guid);
      if (suspect.contains(m.host)) {
        cas_of_host[m.host].push_back(i);
      } else if (leaf != leaf_of_.end()) {
        auto [it, inserted] = first_leaf.try_emplace(m.host, leaf->second);
        if (!inserted) groups.Join(it->second, leaf->second);
      }
    }
    for (auto& [name, cas] : cas_of_host) {
      std::map<SystemKey, std::vector<size_t>> systems;
      for (size_t i : cas) {
        const IbNode& node = nodes_[i];
        SystemKey key;
        if (by_report_.contains(node.guid)) {
          key = {SystemKey::kReport, 0};
        } else if (const uint64_t image = SharedSystemImage(node); image != 0) {
          key = {SystemKey::kSystemImage, image};
        } else if (auto leaf = leaf_of_.find(node.guid); leaf != leaf_of_.end()) {
          key = {SystemKey::kLeafGroup, groups.Find(leaf->second)};
        }
        systems[key].push_back(i);
      }
      if (systems.size() < 2) continue;
      for (auto& [key, members] : systems) {
        if (key.kind == SystemKey::kReport) continue;  // the report's name stands
        uint64_t guid = key.value;
        if (key.kind == SystemKey::kLeafGroup) {
          guid = nodes_[members.front()].guid;
          for (size_t i : members) guid = std::min(guid, nodes_[i].guid);
        }
        const std::string renamed = absl::StrCat(name, "-", GuidHex(guid));
        for (size_t i : members) out_.by_guid[nodes_[i].guid].host = renamed;
        renamed_.push_back(
            absl::StrCat(name, " -> ", renamed, " (", Where(nodes_[members[0]].line), ")"));
      }
    }
  }

  // Factory-default CAs that share a system image GUID with a placed CA join its host,
  // named after the NIC most CAs on their leaf carry (their rail); the rest stay
  // unattributed.
  void PlaceBySystemImage() {
    if (factory_.empty()) return;
    absl::flat_hash_map<uint64_t, std::string> host_of_image;
    absl::flat_hash_set<uint64_t> ambiguous;
    for (size_t i : placed_) {
      const uint64_t image = SharedSystemImage(nodes_[i]);
      if (image == 0) continue;
      const std::string& host = out_.by_guid[nodes_[i].guid].host;
      auto [it, inserted] = host_of_image.try_emplace(image, host);
      if (!inserted && it->second != host) ambiguous.insert(image);
    }
    std::vector<size_t> joining;
    for (size_t i : factory_) {
      const uint64_t image = SharedSystemImage(nodes_[i]);
      if (host_of_image.contains(image) && !ambiguous.contains(image)) joining.push_back(i);
    }
    if (joining.empty()) return;  // the usual dump: factory HCAs are their own system image
    // The NIC names on the joining CAs' leaves only.
    FindLeaves();
    absl::flat_hash_map<uint64_t, std::map<std::string, int>> names_on_leaf;
    for (size_t i : joining) {
      if (auto leaf = leaf_of_.find(nodes_[i].guid); leaf != leaf_of_.end()) {
        names_on_leaf.try_emplace(leaf->second);
      }
    }
    for (size_t i : placed_) {
      auto leaf = leaf_of_.find(nodes_[i].guid);
      if (leaf == leaf_of_.end()) continue;
      if (auto names = names_on_leaf.find(leaf->second); names != names_on_leaf.end()) {
        ++names->second[out_.by_guid[nodes_[i].guid].hca];
      }
    }
    for (size_t i : joining) {
      const IbNode& node = nodes_[i];
      const uint64_t image = SharedSystemImage(node);
      CaModel& m = out_.by_guid[node.guid];
      m.role = CaRole::kHost;
      m.host = host_of_image[image];
      m.hca = absl::StrCat("hca-", GuidHex(node.guid));
      if (auto leaf = leaf_of_.find(node.guid); leaf != leaf_of_.end()) {
        const auto& names = names_on_leaf[leaf->second];
        auto best = std::max_element(names.begin(), names.end(),
                                     [](auto& a, auto& b) { return a.second < b.second; });
        if (best != names.end()) m.hca = best->first;
      }
      placed_.push_back(i);
      placed_late_ = true;
      placed_by_guid_.push_back(absl::StrCat(m.host, "/", m.hca, " (system image GUID ",
                                             GuidHex(image), ", ", Where(node.line), ")"));
    }
  }

  // Two CAs of one host with one NIC name (a copied description): the later one's NIC is
  // suffixed with its GUID, in dump order.
  void Deduplicate() {
    // SplitNamesakes saw every name once, and nothing joined a host since: nothing repeats.
    if (!names_repeat_ && !placed_late_) return;
    std::sort(placed_.begin(), placed_.end());
    absl::flat_hash_set<std::string> taken;
    taken.reserve(placed_.size());
    for (size_t i : placed_) {
      const IbNode& node = nodes_[i];
      CaModel& m = out_.by_guid[node.guid];
      if (taken.insert(absl::StrCat(m.host, "/", m.hca)).second) continue;
      duplicate_descriptions_.push_back(
          absl::StrCat("'", node.description, "' again at ", Where(node.line)));
      m.hca = absl::StrCat(m.hca, "-", GuidHex(node.guid));
    }
  }

  const std::vector<IbNode>& nodes_;
  const IbnetdiscoverOptions& options_;
  absl::string_view source_;
  std::vector<std::string> management_markers_;      // lower case
  absl::flat_hash_map<uint64_t, uint64_t> leaf_of_;  // CA GUID -> its leaf's GUID
  absl::flat_hash_set<uint64_t> by_report_;
  std::vector<size_t> placed_;   // CAs in a host, by position in nodes_
  std::vector<size_t> factory_;  // factory-default CAs not (yet) placed
  bool names_repeat_ = false;    // SplitNamesakes found a host/NIC name twice
  bool placed_late_ = false;     // PlaceBySystemImage placed a CA
  CaIdentities out_;
  std::vector<std::string> placed_by_guid_, renamed_, duplicate_descriptions_;
};

}  // namespace

bool ContainsLower(absl::string_view haystack, absl::string_view needle) {
  if (needle.size() > haystack.size()) return false;
  for (size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
    size_t j = 0;
    while (j < needle.size() &&
           absl::ascii_tolower(static_cast<unsigned char>(haystack[i + j])) == needle[j]) {
      ++j;
    }
    if (j == needle.size()) return true;
  }
  return false;
}

std::string GuidHex(uint64_t guid) { return absl::StrFormat("%016x", guid); }

std::string SafeName(absl::string_view name) {
  return absl::StrReplaceAll(absl::StripAsciiWhitespace(name), {{"/", "-"}});
}

CaIdentities IdentifyCas(const std::vector<IbNode>& nodes, const IbnetdiscoverOptions& options,
                         absl::string_view source) {
  return CaIdentifier(nodes, options, source).Run();
}

}  // namespace topoplace::discovery
