#include "topology/model/hierarchy_phases.h"

#include <algorithm>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/connected_components.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/pending/disjoint_sets.hpp>
#include <boost/pending/queue.hpp>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace topoplace::hierarchy {
namespace {

// Warnings about many objects of one kind become one line, so a 100k-host fabric with a
// systematic problem yields a readable report rather than 100k lines.
void AddGroupedWarning(Warnings& warnings, absl::string_view what,
                       const std::vector<std::string>& items) {
  if (items.empty()) return;
  constexpr size_t kShown = 5;
  std::vector<std::string> shown(items.begin(), items.begin() + std::min(items.size(), kShown));
  std::string line = absl::StrCat(items.size(), " ", what, ": ", absl::StrJoin(shown, ", "));
  if (items.size() > kShown) absl::StrAppend(&line, ", and ", items.size() - kShown, " more");
  warnings.push_back(std::move(line));
}

// Renumbers arbitrary representative ids densely, in order of first appearance.
class DenseIds {
 public:
  int32_t Get(size_t key) {
    auto [it, inserted] = ids_.try_emplace(key, static_cast<int32_t>(ids_.size()));
    return it->second;
  }

 private:
  absl::flat_hash_map<size_t, int32_t> ids_;
};

// Union-find over 0..n-1 (Boost's disjoint sets with their own rank and parent arrays).
class Sets {
 public:
  explicit Sets(size_t n) : rank_(n), parent_(n), sets_(rank_.data(), parent_.data()) {
    for (size_t i = 0; i < n; ++i) sets_.make_set(i);
  }
  void Join(size_t a, size_t b) { sets_.union_set(a, b); }
  size_t Find(size_t a) { return sets_.find_set(a); }

 private:
  std::vector<size_t> rank_, parent_;
  boost::disjoint_sets<size_t*, size_t*> sets_;
};

// For each switch: true if it lies in a minor island, one holding at most half as many
// NIC cables as the island with the most. Precondition: NIC leaves set.
std::vector<bool> MinorIslandLeaves(const SwitchGraph& graph, const std::vector<Nic>& nics) {
  const size_t n = boost::num_vertices(graph.links);
  std::vector<size_t> island(n);
  const size_t islands = n == 0 ? 0 : boost::connected_components(graph.links, island.data());
  std::vector<int64_t> cables(islands, 0);
  for (const Nic& nic : nics) {
    if (nic.leaf >= 0) ++cables[island[static_cast<size_t>(nic.leaf)]];
  }
  const int64_t most = islands == 0 ? 0 : *std::max_element(cables.begin(), cables.end());
  std::vector<bool> minor(n, false);
  for (size_t s = 0; s < n; ++s) minor[s] = 2 * cables[island[s]] <= most;
  return minor;
}

// Breadth-first search from every leaf at once: a switch first reached over a link is one
// tier above the switch it was reached from.
class TierVisitor : public boost::default_bfs_visitor {
 public:
  explicit TierVisitor(std::vector<Switch>& switches) : switches_(switches) {}
  template <class Edge, class Graph>
  void tree_edge(Edge e, const Graph& g) const {
    switches_[boost::target(e, g)].tier = switches_[boost::source(e, g)].tier + 1;
  }

 private:
  std::vector<Switch>& switches_;
};

// Keeps the links whose two switches both have a tier in [1, top].
struct LinksUpToTier {
  const SwitchGraph::Graph* graph = nullptr;
  const std::vector<Switch>* switches = nullptr;
  int32_t top = 0;
  bool operator()(SwitchGraph::Graph::edge_descriptor e) const {
    const int32_t a = (*switches)[boost::source(e, *graph)].tier;
    const int32_t b = (*switches)[boost::target(e, *graph)].tier;
    return a >= 1 && a <= top && b >= 1 && b <= top;
  }
};

// Each host's key: the sorted leaves it reaches in its main network (else in minor
// islands); its block is set to the key's index in `keys` (-1 when it reaches nothing).
std::vector<std::vector<SwitchId>> KeyHostsByLeaves(const std::vector<bool>& minor_island,
                                                    const std::vector<Nic>& nics,
                                                    std::vector<Host>& hosts, Warnings& warnings) {
  std::map<std::vector<SwitchId>, int32_t> block_of_key;
  std::vector<std::vector<SwitchId>> keys;
  std::vector<std::string> isolated;
  for (Host& host : hosts) {
    std::vector<SwitchId> key, minor_key;
    for (NicId n : host.nics) {
      const SwitchId leaf = nics[n].leaf;
      if (leaf >= 0) (minor_island[leaf] ? minor_key : key).push_back(leaf);
    }
    if (key.empty()) key = std::move(minor_key);
    std::sort(key.begin(), key.end());
    key.erase(std::unique(key.begin(), key.end()), key.end());
    host.block = -1;
    if (key.empty()) {
      isolated.push_back(host.name);
      continue;
    }
    auto [it, inserted] = block_of_key.try_emplace(key, static_cast<int32_t>(keys.size()));
    if (inserted) keys.push_back(key);
    host.block = it->second;
  }
  AddGroupedWarning(warnings, "hosts reach no switch and belong to no block", isolated);
  return keys;
}

// For each key, the key whose block it joins: itself, or the one larger key that contains
// it (a host that lost some NICs reaches a strict subset of its block's leaves).
std::vector<int32_t> MergePartialKeys(const std::vector<std::vector<SwitchId>>& keys) {
  std::vector<int32_t> merged_into(keys.size());
  for (size_t k = 0; k < keys.size(); ++k) {
    merged_into[k] = static_cast<int32_t>(k);
    int32_t container = -1;
    int containers = 0;
    for (size_t o = 0; o < keys.size(); ++o) {
      if (o == k || keys[o].size() <= keys[k].size()) continue;
      if (std::includes(keys[o].begin(), keys[o].end(), keys[k].begin(), keys[k].end())) {
        container = static_cast<int32_t>(o);
        ++containers;
      }
    }
    if (containers == 1 && keys[container].size() > keys[k].size()) merged_into[k] = container;
  }
  for (size_t k = 0; k < keys.size(); ++k) {
    size_t root = k;
    while (merged_into[root] != static_cast<int32_t>(root)) root = merged_into[root];
    merged_into[k] = static_cast<int32_t>(root);
  }
  return merged_into;
}

// A whole block short of a rail of the main network lost a leaf (or its cables): its hosts
// keep the block, and the operator hears of it.
void WarnAboutShortBlocks(const std::vector<bool>& minor_island, const std::vector<Rail>& rails,
                          const std::vector<Switch>& switches, const std::vector<Host>& hosts,
                          const std::vector<Block>& blocks, Warnings& warnings) {
  std::vector<bool> main_rail(rails.size(), false);
  for (size_t r = 0; r < rails.size(); ++r) {
    for (SwitchId leaf : rails[r].leaves) main_rail[r] = main_rail[r] || !minor_island[leaf];
  }
  std::vector<std::string> short_blocks;
  for (const Block& block : blocks) {
    std::vector<bool> reached(rails.size(), false);
    for (SwitchId leaf : block.leaves) {
      if (switches[leaf].rail >= 0) reached[switches[leaf].rail] = true;
    }
    std::vector<std::string> missing;
    for (size_t r = 0; r < reached.size(); ++r) {
      if (!reached[r] && main_rail[r]) missing.push_back(absl::StrCat(r));
    }
    if (missing.empty() || block.hosts.empty()) continue;
    short_blocks.push_back(absl::StrCat("the block of ", hosts[block.hosts.front()].name, " (",
                                        block.hosts.size(), " hosts) lacks rail ",
                                        absl::StrJoin(missing, ", ")));
  }
  AddGroupedWarning(warnings, "blocks reach no leaf of some rail (a lost leaf?)", short_blocks);
}

// What an operator should hear about the NVLink domains that span hosts: a domain whose
// hosts sit under different leaf groups (its trays are cabled to other racks' leaves, so
// its placement level does not nest in a block), and a domain with fewer hosts than the
// largest (a tray out, or not yet reporting).
void WarnAboutNvlinkDomains(const std::vector<Host>& hosts,
                            const std::vector<std::vector<HostId>>& domains, Warnings& warnings) {
  size_t largest = 1;
  for (const std::vector<HostId>& d : domains) largest = std::max(largest, d.size());
  if (largest == 1) return;
  for (const std::vector<HostId>& d : domains) {
    const Host& first = hosts[d.front()];
    if (first.nvlink_domain.empty()) continue;
    std::vector<int32_t> blocks;
    for (HostId h : d) {
      if (std::find(blocks.begin(), blocks.end(), hosts[h].block) == blocks.end()) {
        blocks.push_back(hosts[h].block);
      }
    }
    if (blocks.size() > 1) {
      warnings.push_back(absl::StrCat("NVLink domain '", first.nvlink_domain, "' spans ",
                                      blocks.size(),
                                      " leaf groups (blocks): its hosts are cabled to different "
                                      "leaves, so it is no placement level inside one block"));
    }
    if (d.size() < largest) {
      warnings.push_back(absl::StrCat("NVLink domain '", first.nvlink_domain, "' has ", d.size(),
                                      " hosts, the largest has ", largest,
                                      ": a tray out or not reporting?"));
    }
  }
}

}  // namespace

std::vector<SwitchId> SwitchGraph::Neighbours(SwitchId s) const {
  std::vector<SwitchId> near;
  for (auto [it, end] = boost::adjacent_vertices(static_cast<size_t>(s), links); it != end; ++it) {
    near.push_back(static_cast<SwitchId>(*it));
  }
  return near;
}

SwitchGraph ReadSwitchGraph(size_t num_switches, const std::vector<Link>& links) {
  SwitchGraph graph;
  graph.links = SwitchGraph::Graph(num_switches);
  graph.touches_nic.assign(num_switches, false);
  for (const Link& link : links) {
    const bool a_sw = link.a.kind == Endpoint::Kind::kSwitch;
    const bool b_sw = link.b.kind == Endpoint::Kind::kSwitch;
    if (a_sw && b_sw) {
      boost::add_edge(static_cast<size_t>(link.a.id), static_cast<size_t>(link.b.id), graph.links);
    } else {
      graph.touches_nic[a_sw ? link.a.id : link.b.id] = true;
    }
  }
  return graph;
}

int32_t InferTiers(const SwitchGraph& graph, std::vector<Switch>& switches, Warnings& warnings) {
  std::vector<size_t> leaves;
  for (size_t s = 0; s < switches.size(); ++s) {
    switches[s].tier = graph.touches_nic[s] ? 1 : 0;
    if (graph.touches_nic[s]) leaves.push_back(s);
  }
  boost::queue<size_t> queue;
  std::vector<boost::default_color_type> color(switches.size());
  boost::breadth_first_search(graph.links, leaves.begin(), leaves.end(), queue,
                              TierVisitor(switches), color.data());
  std::vector<std::string> unreachable, mismatched, too_deep;
  int32_t max_tier = 0;
  for (Switch& sw : switches) {
    // Deeper switches stay out of the hierarchy, as unreachable ones do; this also bounds
    // the per-tier tables (tiers x switches), which a 20,000-switch chain made 1.6 GB.
    if (sw.tier > kMaxSwitchTiers) {
      too_deep.push_back(sw.name);
      sw.tier = 0;
      continue;
    }
    max_tier = std::max(max_tier, sw.tier);
    if (sw.tier == 0) unreachable.push_back(sw.name);
    if (sw.declared_tier != 0 && sw.tier != 0 && sw.declared_tier != sw.tier) {
      mismatched.push_back(
          absl::StrCat(sw.name, " (declared ", sw.declared_tier, ", inferred ", sw.tier, ")"));
    }
  }
  AddGroupedWarning(warnings, "switches reach no host and are left out of the hierarchy",
                    unreachable);
  AddGroupedWarning(warnings,
                    absl::StrCat("switches are more than ", kMaxSwitchTiers,
                                 " tiers above any host and are left out of the hierarchy"),
                    too_deep);
  AddGroupedWarning(warnings, "switches have a declared tier that the graph contradicts",
                    mismatched);
  return max_tier;
}

void FindNicLeaves(const std::vector<Link>& links, const std::vector<Host>& hosts,
                   std::vector<Nic>& nics, Warnings& warnings) {
  std::vector<std::string> dual_homed, uncabled;
  for (Nic& nic : nics) nic.leaf = -1;
  for (const Link& link : links) {
    const bool a_nic = link.a.kind == Endpoint::Kind::kNic;
    if (!a_nic && link.b.kind != Endpoint::Kind::kNic) continue;
    Nic& nic = nics[a_nic ? link.a.id : link.b.id];
    const SwitchId leaf = a_nic ? link.b.id : link.a.id;
    if (nic.leaf >= 0 && nic.leaf != leaf) {
      dual_homed.push_back(absl::StrCat(hosts[nic.host].name, "/", nic.name));
      continue;
    }
    nic.leaf = leaf;
  }
  for (const Nic& nic : nics) {
    if (nic.leaf < 0) uncabled.push_back(absl::StrCat(hosts[nic.host].name, "/", nic.name));
  }
  AddGroupedWarning(warnings, "NICs are cabled to more than one switch (first one used)",
                    dual_homed);
  AddGroupedWarning(warnings, "NICs are not cabled to any switch", uncabled);
}

bool AssignRails(const std::vector<Host>& hosts, std::vector<Switch>& switches,
                 std::vector<Nic>& nics, std::vector<Rail>& rails, Warnings& warnings) {
  std::vector<std::map<int32_t, int32_t>> index_counts(switches.size());
  for (const Nic& nic : nics) {
    if (nic.leaf >= 0) ++index_counts[nic.leaf][nic.index];
  }
  bool rail_optimized = true;
  rails.clear();
  std::vector<std::string> mixed;
  for (size_t s = 0; s < switches.size(); ++s) {
    const auto& counts = index_counts[s];
    if (counts.empty()) continue;
    auto best = std::max_element(counts.begin(), counts.end(),
                                 [](auto& a, auto& b) { return a.second < b.second; });
    switches[s].rail = best->first;
    if (counts.size() > 1) {
      rail_optimized = false;
      mixed.push_back(switches[s].name);
    }
    if (static_cast<size_t>(best->first) >= rails.size()) rails.resize(best->first + 1);
    rails[best->first].leaves.push_back(static_cast<SwitchId>(s));
  }
  if (mixed.size() < switches.size()) {
    AddGroupedWarning(warnings, "leaves receive NICs of several indexes (not rail-optimised)",
                      mixed);
  }
  for (Nic& nic : nics) nic.rail = nic.leaf >= 0 ? switches[nic.leaf].rail : -1;
  // On a leaf where most NICs carry one index (a rail leaf), a NIC of another index is a
  // cable in the wrong port more likely than a design; its rail is the leaf's, as traffic
  // goes. On a leaf without such a majority (a top-of-rack switch) nothing is crossed.
  std::vector<std::string> crossed;
  for (const Nic& nic : nics) {
    if (nic.leaf < 0 || nic.rail == nic.index) continue;
    int32_t total = 0;
    for (const auto& [index, count] : index_counts[nic.leaf]) total += count;
    if (2 * index_counts[nic.leaf][nic.rail] <= total) continue;
    crossed.push_back(absl::StrCat(hosts[nic.host].name, "/", nic.name, " on ",
                                   switches[nic.leaf].name, " (rail ", nic.rail, "; expected rail ",
                                   nic.index, ")"));
  }
  AddGroupedWarning(warnings,
                    "NICs land on another rail's leaf (crossed cables?); placement uses the rail "
                    "they reach",
                    crossed);
  return rail_optimized;
}

void FormBlocks(const SwitchGraph& graph, const std::vector<Rail>& rails,
                const std::vector<Nic>& nics, std::vector<Switch>& switches,
                std::vector<Host>& hosts, std::vector<Block>& blocks, Warnings& warnings) {
  // An island (switches joined by switch links) with at most half as many NIC cables as
  // the largest is a separate network (storage, management): a compute host's HCA there
  // does not split or mark "partial" its block. Islands of similar size are planes of one
  // fabric (rail-only networks) and all count. A host cabled only into minor islands keys
  // on those.
  const std::vector<bool> minor_island = MinorIslandLeaves(graph, nics);
  const std::vector<std::vector<SwitchId>> keys =
      KeyHostsByLeaves(minor_island, nics, hosts, warnings);
  const std::vector<int32_t> merged_into = MergePartialKeys(keys);
  blocks.clear();
  DenseIds block_ids;
  std::vector<int32_t> final_block(keys.size(), -1);
  std::vector<std::string> partial;
  for (size_t h = 0; h < hosts.size(); ++h) {
    Host& host = hosts[h];
    if (host.block < 0) continue;
    const int32_t key = host.block;
    const int32_t root = merged_into[key];
    if (final_block[root] < 0) {
      final_block[root] = block_ids.Get(root);
      blocks.emplace_back();
      blocks.back().leaves = keys[root];
    }
    host.block = final_block[root];
    blocks[host.block].hosts.push_back(static_cast<HostId>(h));
    if (key != root) {
      partial.push_back(
          absl::StrCat(host.name, " (", keys[key].size(), " of ", keys[root].size(), " leaves)"));
    }
  }
  AddGroupedWarning(warnings, "hosts reach only part of their block's leaves", partial);
  WarnAboutShortBlocks(minor_island, rails, switches, hosts, blocks, warnings);
  for (Switch& sw : switches) sw.block = -1;
  std::vector<int32_t> leaf_blocks(switches.size(), 0);
  for (size_t b = 0; b < blocks.size(); ++b) {
    for (SwitchId leaf : blocks[b].leaves) {
      switches[leaf].block = ++leaf_blocks[leaf] == 1 ? static_cast<int32_t>(b) : -1;
    }
  }
}

std::vector<std::vector<int32_t>> JoinTierDomains(const SwitchGraph& graph,
                                                  const std::vector<Switch>& switches,
                                                  int32_t max_tier) {
  const size_t n = switches.size();
  std::vector<std::vector<int32_t>> leaf_domain(max_tier, std::vector<int32_t>(n, -1));
  std::vector<size_t> component(n);
  for (int32_t k = 1; k <= max_tier; ++k) {
    const boost::filtered_graph<SwitchGraph::Graph, LinksUpToTier> up_to_k(
        graph.links, LinksUpToTier{&graph.links, &switches, k});
    if (n > 0) boost::connected_components(up_to_k, component.data());
    DenseIds ids;
    for (size_t s = 0; s < n; ++s) {
      if (switches[s].tier == 1) leaf_domain[k - 1][s] = ids.Get(component[s]);
    }
  }
  return leaf_domain;
}

void FormPods(const std::vector<std::vector<int32_t>>& leaf_domain, std::vector<Block>& blocks,
              std::vector<Host>& hosts, std::vector<Pod>& pods) {
  pods.clear();
  const int32_t max_tier = static_cast<int32_t>(leaf_domain.size());
  if (!blocks.empty() && max_tier >= 1) {
    const int32_t pod_tier = std::min<int32_t>(2, max_tier);
    absl::flat_hash_map<int32_t, int32_t> pod_of_domain;
    Sets sets(blocks.size());
    for (size_t b = 0; b < blocks.size(); ++b) {
      for (SwitchId leaf : blocks[b].leaves) {
        auto [it, inserted] =
            pod_of_domain.try_emplace(leaf_domain[pod_tier - 1][leaf], static_cast<int32_t>(b));
        if (!inserted) sets.Join(b, static_cast<size_t>(it->second));
      }
    }
    DenseIds ids;
    for (size_t b = 0; b < blocks.size(); ++b) {
      const int32_t pod = ids.Get(sets.Find(b));
      if (static_cast<size_t>(pod) >= pods.size()) pods.resize(pod + 1);
      blocks[b].pod = pod;
      pods[pod].blocks.push_back(static_cast<int32_t>(b));
    }
  }
  for (Host& host : hosts) host.pod = host.block >= 0 ? blocks[host.block].pod : -1;
}

std::vector<std::vector<HostId>> FormNvlinkDomains(std::vector<Host>& hosts, Warnings& warnings) {
  std::vector<std::vector<HostId>> domains;
  absl::flat_hash_map<std::string, int32_t> domain_by_name;
  for (size_t h = 0; h < hosts.size(); ++h) {
    Host& host = hosts[h];
    int32_t id = static_cast<int32_t>(domains.size());
    if (!host.nvlink_domain.empty()) {
      id = domain_by_name.try_emplace(host.nvlink_domain, id).first->second;
    }
    if (static_cast<size_t>(id) == domains.size()) domains.emplace_back();
    domains[id].push_back(static_cast<HostId>(h));
    host.nvlink_domain_id = id;
  }
  WarnAboutNvlinkDomains(hosts, domains, warnings);
  return domains;
}

std::vector<TierStats> SumTierBandwidth(const std::vector<Switch>& switches,
                                        const std::vector<Link>& links, int32_t max_tier) {
  std::vector<TierStats> stats(max_tier);
  for (int32_t k = 1; k <= max_tier; ++k) stats[k - 1].tier = k;
  for (const Switch& sw : switches) {
    if (sw.tier >= 1) ++stats[sw.tier - 1].switches;
  }
  auto tier_of = [&switches](Endpoint e) {
    return e.kind == Endpoint::Kind::kNic ? 0 : switches[e.id].tier;
  };
  for (const Link& link : links) {
    const int32_t ta = tier_of(link.a);
    const int32_t tb = tier_of(link.b);
    if (ta == tb) continue;
    const int32_t low = std::min(ta, tb);
    const int32_t high = std::max(ta, tb);
    if (low < 0 || (low == 0 && (link.a.kind == Endpoint::Kind::kSwitch &&
                                 link.b.kind == Endpoint::Kind::kSwitch))) {
      continue;  // a switch that reaches no host
    }
    stats[high - 1].down_gbps += link.bandwidth_gbps();
    if (low >= 1) stats[low - 1].up_gbps += link.bandwidth_gbps();
  }
  return stats;
}

}  // namespace topoplace::hierarchy
