#include "topology/discovery/nic_order.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "topology/discovery/grouped_warning.h"

namespace topoplace::discovery {
namespace {

void SortNics(HostFact& host) {
  std::stable_sort(host.nics.begin(), host.nics.end(),
                   [](const NicFact& a, const NicFact& b) { return NaturalLess(a.name, b.name); });
}

std::vector<std::string> SeenNicNames(const HostFact& host) {
  std::vector<std::string> names;
  for (const NicFact& nic : host.nics) {
    if (!nic.placeholder) names.push_back(nic.name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

void AddPlaceholders(FabricFacts& facts) {
  std::map<std::vector<std::string>, int> popularity;
  for (const HostFact& host : facts.hosts) {
    if (!host.nics.empty()) ++popularity[SeenNicNames(host)];
  }
  if (popularity.empty()) return;
  // The most common NIC set, if it is clearly the norm: held by two hosts or more and
  // by more hosts than any other set.
  auto modal = popularity.begin();
  int runner_up = 0;
  for (auto it = popularity.begin(); it != popularity.end(); ++it) {
    if (it == modal) continue;
    if (it->second > modal->second) {
      runner_up = modal->second;
      modal = it;
    } else {
      runner_up = std::max(runner_up, it->second);
    }
  }
  const int with_nics = std::accumulate(popularity.begin(), popularity.end(), 0,
                                        [](int sum, const auto& p) { return sum + p.second; });
  if (modal->second < 2 || modal->second <= runner_up) return;
  const std::vector<std::string>& expected = modal->first;

  std::vector<std::string> padded;
  for (HostFact& host : facts.hosts) {
    const std::vector<std::string> seen = SeenNicNames(host);
    if (seen.empty() || seen.size() >= expected.size() ||
        !std::includes(expected.begin(), expected.end(), seen.begin(), seen.end())) {
      continue;
    }
    const double speed = host.nics.front().speed_gbps;
    std::vector<std::string> missing;
    for (const std::string& name : expected) {
      if (std::binary_search(seen.begin(), seen.end(), name)) continue;
      const bool listed = std::any_of(host.nics.begin(), host.nics.end(),
                                      [&name](const NicFact& n) { return n.name == name; });
      if (!listed)
        host.nics.push_back(NicFact{.name = name, .speed_gbps = speed, .placeholder = true});
      missing.push_back(name);
    }
    SortNics(host);
    padded.push_back(absl::StrCat(host.name, " (", absl::StrJoin(missing, " "), ")"));
  }
  AddGroupedWarning(facts.warnings,
                    absl::StrCat("hosts lack NICs that ", modal->second, " of ", with_nics,
                                 " hosts have; kept as uncabled placeholders so the other NICs "
                                 "stay on their rails"),
                    padded);
}

// Union-find over switches joined by switch-switch links.
class Islands {
 public:
  explicit Islands(const FabricFacts& facts) {
    for (const LinkFact& link : facts.links) {
      if (link.a.role == NodeRole::kSwitch && link.b.role == NodeRole::kSwitch) {
        Join(Id(link.a.node), Id(link.b.node));
      }
    }
  }
  size_t Of(const std::string& sw) { return Find(Id(sw)); }

 private:
  size_t Id(const std::string& sw) {
    auto [it, inserted] = id_.try_emplace(sw, parent_.size());
    if (inserted) parent_.push_back(parent_.size());
    return it->second;
  }
  size_t Find(size_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void Join(size_t a, size_t b) { parent_[Find(a)] = Find(b); }

  absl::flat_hash_map<std::string, size_t> id_;
  std::vector<size_t> parent_;
};

void MoveSecondaryNetworkNics(FabricFacts& facts) {
  Islands islands(facts);
  // Island of each host cable's switch end (SIZE_MAX for other links), counted per island.
  std::vector<size_t> island_of_link(facts.links.size(), SIZE_MAX);
  absl::flat_hash_map<size_t, int> cables_per_island;
  for (size_t l = 0; l < facts.links.size(); ++l) {
    const LinkFact& link = facts.links[l];
    const bool a_host = link.a.role == NodeRole::kHost;
    if (!a_host && link.b.role != NodeRole::kHost) continue;
    island_of_link[l] = islands.Of(a_host ? link.b.node : link.a.node);
    ++cables_per_island[island_of_link[l]];
  }
  if (cables_per_island.size() < 2) return;
  int most = 0;
  for (const auto& [island, cables] : cables_per_island) most = std::max(most, cables);
  // An island is a separate (storage, management) network when it holds at most half as
  // many host cables as the largest one; islands of similar size are planes of one
  // fabric (rail-only networks) and keep their NICs in name order.
  auto is_minor = [&cables_per_island, most](size_t island) {
    return 2 * cables_per_island.at(island) <= most;
  };
  // Only NICs on a minor island are looked up below; rail planes alone need no lookup.
  absl::flat_hash_map<std::string, size_t> island_of_nic;  // "host/nic" -> minor island
  for (size_t l = 0; l < facts.links.size(); ++l) {
    if (island_of_link[l] == SIZE_MAX || !is_minor(island_of_link[l])) continue;
    const LinkFact& link = facts.links[l];
    const PortRef& nic = link.a.role == NodeRole::kHost ? link.a : link.b;
    island_of_nic[absl::StrCat(nic.node, "/", nic.port)] = island_of_link[l];
  }
  if (island_of_nic.empty()) return;
  std::vector<std::string> moved;
  for (HostFact& host : facts.hosts) {
    auto secondary = [&](const NicFact& nic) {
      auto it = island_of_nic.find(absl::StrCat(host.name, "/", nic.name));
      return it != island_of_nic.end() && is_minor(it->second);
    };
    std::vector<std::string> names;
    for (const NicFact& nic : host.nics) {
      if (secondary(nic)) names.push_back(nic.name);
    }
    if (names.empty() || names.size() == host.nics.size()) continue;
    std::stable_partition(host.nics.begin(), host.nics.end(),
                          [&](const NicFact& nic) { return !secondary(nic); });
    moved.push_back(absl::StrCat(host.name, " (", absl::StrJoin(names, " "), ")"));
  }
  AddGroupedWarning(facts.warnings,
                    "hosts have NICs on a separate network (storage or management?); ordered "
                    "after their compute NICs",
                    moved);
}

}  // namespace

void OrderHostNics(FabricFacts& facts) {
  for (HostFact& host : facts.hosts) SortNics(host);
  AddPlaceholders(facts);
  MoveSecondaryNetworkNics(facts);
}

}  // namespace topoplace::discovery
