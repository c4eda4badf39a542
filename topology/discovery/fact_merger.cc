#include "topology/discovery/fact_merger.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "topology/discovery/grouped_warning.h"
#include "topology/discovery/nic_order.h"

namespace topoplace::discovery {
namespace {

int Severity(LinkState state) {
  switch (state) {
    case LinkState::kUp:
      return 0;
    case LinkState::kDegraded:
      return 1;
    case LinkState::kDown:
      return 2;
  }
  return 0;
}

std::string EndKey(const PortRef& end) { return absl::StrCat(end.node, "\x1f", end.port); }

std::string EndName(const PortRef& end) {
  if (end.port.empty()) return end.node;
  return absl::StrCat(end.node, end.role == NodeRole::kHost ? "/" : ":", end.port);
}

}  // namespace

void FactMerger::Add(FabricFacts facts) {
  for (HostFact& host : facts.hosts) MergeHost(std::move(host));
  for (SwitchFact& sw : facts.switches) {
    auto [it, inserted] = switch_index_.try_emplace(sw.name, switches_.size());
    if (inserted) {
      switches_.push_back(std::move(sw));
      continue;
    }
    SwitchFact& known = switches_[it->second];
    if (known.declared_tier == 0) {
      known.declared_tier = sw.declared_tier;
    } else if (sw.declared_tier != 0 && sw.declared_tier != known.declared_tier) {
      warnings_.push_back(absl::StrCat("switch ", sw.name, ": tier ", known.declared_tier, " (",
                                       known.origin, ") and tier ", sw.declared_tier, " (",
                                       sw.origin, ") declared; kept ", known.declared_tier));
    }
  }
  if (links_.empty()) {
    links_ = std::move(facts.links);
  } else {
    links_.reserve(links_.size() + facts.links.size());
    for (LinkFact& link : facts.links) links_.push_back(std::move(link));
  }
  for (AggregationNodeFact& an : facts.aggregation_nodes) {
    auto [it, inserted] = aggregation_index_.try_emplace(an.name, aggregation_nodes_.size());
    if (inserted) {
      aggregation_nodes_.push_back(std::move(an));
    } else if (aggregation_nodes_[it->second].switch_name != an.switch_name) {
      warnings_.push_back(absl::StrCat("aggregation node ", an.name, ": in switch ",
                                       aggregation_nodes_[it->second].switch_name, " (",
                                       aggregation_nodes_[it->second].origin, ") and in ",
                                       an.switch_name, " (", an.origin, "); kept the first"));
    }
  }
  for (UnattributedNicFact& nic : facts.unattributed_nics) {
    if (unattributed_names_.insert(nic.name).second) unattributed_nics_.push_back(std::move(nic));
  }
  for (std::string& warning : facts.warnings) warnings_.push_back(std::move(warning));
}

void FactMerger::MergeHost(HostFact host) {
  auto [it, inserted] = host_index_.try_emplace(host.name, hosts_.size());
  if (inserted) {
    hosts_.push_back(std::move(host));
    return;
  }
  HostFact& known = hosts_[it->second];
  if (known.nvlink_domain.empty()) {
    known.nvlink_domain = host.nvlink_domain;
  } else if (!host.nvlink_domain.empty() && host.nvlink_domain != known.nvlink_domain) {
    warnings_.push_back(absl::StrCat("host ", host.name, ": NVLink domain '", known.nvlink_domain,
                                     "' (", known.origin, ") and '", host.nvlink_domain, "' (",
                                     host.origin, "); kept the first"));
  }
  if (known.gpu_model.empty()) {
    known.gpu_model = host.gpu_model;
  } else if (!host.gpu_model.empty() && host.gpu_model != known.gpu_model) {
    warnings_.push_back(absl::StrCat("host ", host.name, ": GPU model '", known.gpu_model, "' (",
                                     known.origin, ") and '", host.gpu_model, "' (", host.origin,
                                     "); kept the first"));
  }
  for (const NicFact& nic : host.nics) {
    NicFact& merged = NicNamed(known, nic.name);
    merged.placeholder = merged.placeholder && nic.placeholder;
    if (merged.speed_gbps <= 0) {
      merged.speed_gbps = nic.speed_gbps;
    } else if (nic.speed_gbps > 0 && nic.speed_gbps != merged.speed_gbps) {
      warnings_.push_back(absl::StrFormat("NIC %s/%s: speed %g Gb/s (%s) and %g Gb/s (%s); kept %g",
                                          host.name, nic.name, merged.speed_gbps, known.origin,
                                          nic.speed_gbps, host.origin, merged.speed_gbps));
    }
  }
  for (const GpuFact& gpu : host.gpus) {
    auto same = std::find_if(known.gpus.begin(), known.gpus.end(),
                             [&gpu](const GpuFact& g) { return g.index == gpu.index; });
    if (same == known.gpus.end()) {
      known.gpus.push_back(gpu);
      continue;
    }
    if (same->nic.empty()) same->nic = gpu.nic;
    if (same->numa < 0) same->numa = gpu.numa;
    if (!gpu.nic.empty() && gpu.nic != same->nic) {
      warnings_.push_back(absl::StrCat("host ", host.name, " GPU ", gpu.index, ": affine NIC ",
                                       same->nic, " (", known.origin, ") and ", gpu.nic, " (",
                                       host.origin, "); kept the first"));
    }
  }
}

HostFact& FactMerger::HostNamed(const std::string& name, const std::string& origin) {
  auto [it, inserted] = host_index_.try_emplace(name, hosts_.size());
  if (inserted) {
    HostFact& host = hosts_.emplace_back();
    host.name = name;
    host.origin = origin;
  }
  return hosts_[it->second];
}

NicFact& FactMerger::NicNamed(HostFact& host, const std::string& nic) {
  for (NicFact& known : host.nics) {
    if (known.name == nic) return known;
  }
  return host.nics.emplace_back(NicFact{.name = nic});
}

absl::flat_hash_map<std::string, NodeRole> FactMerger::ResolveRoles() {
  absl::flat_hash_map<std::string, NodeRole> role;
  absl::flat_hash_map<std::string, std::string> role_origin;
  for (const HostFact& host : hosts_) role[host.name] = NodeRole::kHost;
  std::vector<SwitchFact> switches;
  for (SwitchFact& sw : switches_) {
    if (role.contains(sw.name)) {
      warnings_.push_back(absl::StrCat(sw.name, " is a host (", hosts_[host_index_[sw.name]].origin,
                                       ") and a switch (", sw.origin, "); kept the host"));
      continue;
    }
    role[sw.name] = NodeRole::kSwitch;
    switches.push_back(std::move(sw));
  }
  switches_ = std::move(switches);
  switch_index_.clear();
  for (size_t i = 0; i < switches_.size(); ++i) switch_index_[switches_[i].name] = i;
  for (auto& [name, r] : role) role_origin[name] = "declared";
  for (const LinkFact& link : links_) {
    for (const PortRef* end : {&link.a, &link.b}) {
      if (end->role == NodeRole::kUnknown) continue;
      auto [it, inserted] = role.try_emplace(end->node, end->role);
      if (inserted) {
        role_origin[end->node] = link.origin;
      } else if (it->second != end->role) {
        warnings_.push_back(absl::StrCat(
            end->node, " is a ", NodeRoleName(it->second), " (", role_origin[end->node], ") but ",
            link.origin, " says ", NodeRoleName(end->role), "; kept ", NodeRoleName(it->second)));
      }
    }
  }
  // A node cabled to a host must be a switch (hosts are not cabled to each other).
  auto role_of = [&role](const std::string& node) {
    const auto it = role.find(node);
    return it == role.end() ? NodeRole::kUnknown : it->second;
  };
  for (const LinkFact& link : links_) {
    // Look both roles up before inserting: an insertion may rehash the map.
    const NodeRole ra = role_of(link.a.node), rb = role_of(link.b.node);
    if (ra == NodeRole::kUnknown && rb == NodeRole::kHost) role[link.a.node] = NodeRole::kSwitch;
    if (rb == NodeRole::kUnknown && ra == NodeRole::kHost) role[link.b.node] = NodeRole::kSwitch;
  }
  std::vector<std::string> guessed;
  for (const LinkFact& link : links_) {
    for (const PortRef* end : {&link.a, &link.b}) {
      if (role.try_emplace(end->node, NodeRole::kHost).second) guessed.push_back(end->node);
    }
  }
  AddGroupedWarning(warnings_,
                    "nodes of unknown kind (no capabilities, no report of their own) taken for "
                    "hosts",
                    guessed);
  return role;
}

std::vector<LinkFact> FactMerger::OneLinkPerCable(
    absl::flat_hash_map<std::string, NodeRole>& role) {
  absl::flat_hash_map<std::string, size_t> link_by_key;  // both ends -> index in `links`
  absl::flat_hash_map<std::string, size_t> link_by_end;  // one end -> index in `links`
  std::vector<LinkFact> links;
  link_by_key.reserve(links_.size());
  link_by_end.reserve(2 * links_.size());
  links.reserve(links_.size());
  for (LinkFact& link : links_) {
    link.a.role = role[link.a.node];
    link.b.role = role[link.b.node];
    if (link.a.role == NodeRole::kHost && link.b.role == NodeRole::kHost) {
      warnings_.push_back(absl::StrCat(link.origin, ": cable between two hosts (", EndName(link.a),
                                       ", ", EndName(link.b), ") is not modelled"));
      continue;
    }
    const PortRef* nic_end = link.a.role == NodeRole::kHost   ? &link.a
                             : link.b.role == NodeRole::kHost ? &link.b
                                                              : nullptr;
    if (nic_end != nullptr && nic_end->port.empty()) {
      warnings_.push_back(
          absl::StrCat(link.origin, ": link to host ", nic_end->node, " names no NIC; dropped"));
      continue;
    }
    const std::string end_a = EndKey(link.a), end_b = EndKey(link.b);
    const std::string key =
        end_a < end_b ? absl::StrCat(end_a, "|", end_b) : absl::StrCat(end_b, "|", end_a);
    if (auto same = link_by_key.find(key); same != link_by_key.end()) {
      LinkFact& known = links[same->second];
      if (known.state != link.state) {
        warnings_.push_back(absl::StrCat("link ", EndName(link.a), " - ", EndName(link.b),
                                         ": state ", LinkStateName(known.state), " (", known.origin,
                                         ") and ", LinkStateName(link.state), " (", link.origin,
                                         "); kept the worse"));
        if (Severity(link.state) > Severity(known.state)) known.state = link.state;
      }
      if (known.speed_gbps <= 0) known.speed_gbps = link.speed_gbps;
      continue;
    }
    // Ends that identify a cable: every NIC, and switch ports when the source names them.
    const bool keyed_a = link.a.role != NodeRole::kSwitch || !link.a.port.empty();
    const bool keyed_b = link.b.role != NodeRole::kSwitch || !link.b.port.empty();
    bool conflict = false;
    for (const auto& [end, end_key, peer, keyed] :
         {std::tuple(&link.a, &end_a, &link.b, keyed_a),
          std::tuple(&link.b, &end_b, &link.a, keyed_b)}) {
      if (!keyed) continue;
      auto owner = link_by_end.find(*end_key);
      if (owner == link_by_end.end()) continue;
      const LinkFact& first = links[owner->second];
      const PortRef& first_peer = EndKey(first.a) == *end_key ? first.b : first.a;
      warnings_.push_back(absl::StrCat(EndName(*end), " is linked twice: to ", EndName(first_peer),
                                       " (", first.origin, ") and to ", EndName(*peer), " (",
                                       link.origin, "); kept the first"));
      conflict = true;
      break;
    }
    if (conflict) continue;
    const size_t index = links.size();
    link_by_key.emplace(key, index);
    if (keyed_a) link_by_end.emplace(end_a, index);
    if (keyed_b) link_by_end.emplace(end_b, index);
    links.push_back(std::move(link));
  }
  return links;
}

void FactMerger::AddNodesOnlyLinksName(const std::vector<LinkFact>& links) {
  for (const LinkFact& link : links) {
    for (const PortRef* end : {&link.a, &link.b}) {
      if (end->role == NodeRole::kHost) {
        NicFact& nic = NicNamed(HostNamed(end->node, link.origin), end->port);
        if (nic.speed_gbps <= 0) nic.speed_gbps = link.speed_gbps;
        nic.placeholder = false;
      } else if (switch_index_.try_emplace(end->node, switches_.size()).second) {
        switches_.push_back(SwitchFact{.name = end->node, .origin = link.origin});
      }
    }
  }
}

FabricFacts FactMerger::Resolve() && {
  absl::flat_hash_map<std::string, NodeRole> role = ResolveRoles();
  std::vector<LinkFact> links = OneLinkPerCable(role);
  AddNodesOnlyLinksName(links);
  FabricFacts facts;
  facts.hosts = std::move(hosts_);
  facts.switches = std::move(switches_);
  facts.links = std::move(links);
  facts.aggregation_nodes = std::move(aggregation_nodes_);
  facts.unattributed_nics = std::move(unattributed_nics_);
  facts.warnings = std::move(warnings_);
  OrderHostNics(facts);
  return facts;
}

}  // namespace topoplace::discovery
