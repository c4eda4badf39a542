#include "topology/model/hierarchy_inference.h"

#include <algorithm>
#include <boost/pending/disjoint_sets.hpp>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace topoplace {
namespace {

// Warnings about many objects of one kind become one line, so a 100k-host fabric with a
// systematic problem yields a readable report rather than 100k lines.
void AddGroupedWarning(std::vector<std::string>& warnings, absl::string_view what,
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

struct SwitchNeighbors {
  std::vector<SwitchId> switches;
  std::vector<LinkId> links;
};

// For each switch: true if it lies in a minor island, one holding at most half as many
// NIC cables as the island with the most (see step 4 of Run). Precondition: NIC leaves set.
std::vector<bool> MinorIslandLeaves(const Fabric& f, const std::vector<SwitchNeighbors>& adj) {
  const size_t n = adj.size();
  std::vector<size_t> rank(n), parent(n);
  boost::disjoint_sets<size_t*, size_t*> sets(rank.data(), parent.data());
  for (size_t s = 0; s < n; ++s) sets.make_set(s);
  for (size_t s = 0; s < n; ++s) {
    for (SwitchId o : adj[s].switches) sets.union_set(s, static_cast<size_t>(o));
  }
  std::vector<int64_t> cables(n, 0);  // per island root
  for (const Nic& nic : f.nics()) {
    if (nic.leaf >= 0) ++cables[sets.find_set(static_cast<size_t>(nic.leaf))];
  }
  const int64_t most = n == 0 ? 0 : *std::max_element(cables.begin(), cables.end());
  std::vector<bool> minor(n, false);
  for (size_t s = 0; s < n; ++s) minor[s] = 2 * cables[sets.find_set(s)] <= most;
  return minor;
}

// What an operator should hear about the NVLink domains that span hosts: a domain whose
// hosts sit under different leaf groups (its trays are cabled to other racks' leaves, so
// its placement level does not nest in a block), and a domain with fewer hosts than the
// largest (a tray out, or not yet reporting).
void WarnAboutNvlinkDomains(const std::vector<Host>& hosts,
                            const std::vector<std::vector<HostId>>& domains,
                            std::vector<std::string>& warnings) {
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

void HierarchyInference::Run(Fabric& f) {
  const size_t num_switches = f.switches_.size();
  std::vector<std::string>& warnings = f.warnings_;

  // Switch-to-switch adjacency, read off the graph once.
  std::vector<SwitchNeighbors> up(num_switches);
  std::vector<bool> touches_nic(num_switches, false);
  for (const Link& link : f.links_) {
    const bool a_sw = link.a.kind == Endpoint::Kind::kSwitch;
    const bool b_sw = link.b.kind == Endpoint::Kind::kSwitch;
    if (a_sw && b_sw) {
      up[link.a.id].switches.push_back(link.b.id);
      up[link.b.id].switches.push_back(link.a.id);
    } else {
      touches_nic[a_sw ? link.a.id : link.b.id] = true;
    }
  }

  // 1. Tiers: a leaf touches a NIC; every other switch is 1 + its distance from a leaf.
  std::deque<SwitchId> queue;
  for (size_t s = 0; s < num_switches; ++s) {
    f.switches_[s].tier = 0;
    if (touches_nic[s]) {
      f.switches_[s].tier = 1;
      queue.push_back(static_cast<SwitchId>(s));
    }
  }
  while (!queue.empty()) {
    const SwitchId s = queue.front();
    queue.pop_front();
    for (SwitchId n : up[s].switches) {
      if (f.switches_[n].tier == 0) {
        f.switches_[n].tier = f.switches_[s].tier + 1;
        queue.push_back(n);
      }
    }
  }
  std::vector<std::string> unreachable, mismatched, too_deep;
  int32_t max_tier = 0;
  for (Switch& sw : f.switches_) {
    // Deeper switches stay out of the hierarchy, as unreachable ones do; this also bounds
    // the per-tier tables below (tiers x switches), which a 20,000-switch chain made 1.6 GB.
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

  // 2. Each NIC's leaf; a NIC cabled to two switches keeps the first.
  std::vector<std::string> dual_homed, uncabled;
  for (Nic& nic : f.nics_) nic.leaf = -1;
  for (const Link& link : f.links_) {
    const bool a_nic = link.a.kind == Endpoint::Kind::kNic;
    if (!a_nic && link.b.kind != Endpoint::Kind::kNic) continue;
    Nic& nic = f.nics_[a_nic ? link.a.id : link.b.id];
    const SwitchId leaf = a_nic ? link.b.id : link.a.id;
    if (nic.leaf >= 0 && nic.leaf != leaf) {
      dual_homed.push_back(absl::StrCat(f.hosts_[nic.host].name, "/", nic.name));
      continue;
    }
    nic.leaf = leaf;
  }
  for (const Nic& nic : f.nics_) {
    if (nic.leaf < 0) uncabled.push_back(absl::StrCat(f.hosts_[nic.host].name, "/", nic.name));
  }
  AddGroupedWarning(warnings, "NICs are cabled to more than one switch (first one used)",
                    dual_homed);
  AddGroupedWarning(warnings, "NICs are not cabled to any switch", uncabled);

  // 3. Rails: a leaf's rail is the NIC index most of its NICs have.
  std::vector<std::map<int32_t, int32_t>> index_counts(num_switches);
  for (const Nic& nic : f.nics_) {
    if (nic.leaf >= 0) ++index_counts[nic.leaf][nic.index];
  }
  f.rail_optimized_ = true;
  f.rails_.clear();
  std::vector<std::string> mixed;
  for (size_t s = 0; s < num_switches; ++s) {
    const auto& counts = index_counts[s];
    if (counts.empty()) continue;
    auto best = std::max_element(counts.begin(), counts.end(),
                                 [](auto& a, auto& b) { return a.second < b.second; });
    f.switches_[s].rail = best->first;
    if (counts.size() > 1) {
      f.rail_optimized_ = false;
      mixed.push_back(f.switches_[s].name);
    }
    if (static_cast<size_t>(best->first) >= f.rails_.size()) f.rails_.resize(best->first + 1);
    f.rails_[best->first].leaves.push_back(static_cast<SwitchId>(s));
  }
  if (mixed.size() < num_switches) {
    AddGroupedWarning(warnings, "leaves receive NICs of several indexes (not rail-optimised)",
                      mixed);
  }
  for (Nic& nic : f.nics_) nic.rail = nic.leaf >= 0 ? f.switches_[nic.leaf].rail : -1;
  // On a leaf where most NICs carry one index (a rail leaf), a NIC of another index is a
  // cable in the wrong port more likely than a design; its rail is the leaf's, as traffic
  // goes. On a leaf without such a majority (a top-of-rack switch) nothing is crossed.
  std::vector<std::string> crossed;
  for (const Nic& nic : f.nics_) {
    if (nic.leaf < 0 || nic.rail == nic.index) continue;
    int32_t total = 0;
    for (const auto& [index, count] : index_counts[nic.leaf]) total += count;
    if (2 * index_counts[nic.leaf][nic.rail] <= total) continue;
    crossed.push_back(absl::StrCat(f.hosts_[nic.host].name, "/", nic.name, " on ",
                                   f.switches_[nic.leaf].name, " (rail ", nic.rail,
                                   "; expected rail ", nic.index, ")"));
  }
  AddGroupedWarning(warnings,
                    "NICs land on another rail's leaf (crossed cables?); placement uses the rail "
                    "they reach",
                    crossed);

  // 4. Blocks: hosts that reach exactly the same set of leaves, counting only leaves in
  // the host's main network. An island (switches joined by switch links) with at most half
  // as many NIC cables as the largest is a separate network (storage, management): a
  // compute host's HCA there does not split or mark "partial" its block. Islands of similar
  // size are planes of one fabric (rail-only networks) and all count. A host cabled only
  // into minor islands keys on those.
  const std::vector<bool> minor_island = MinorIslandLeaves(f, up);
  std::map<std::vector<SwitchId>, int32_t> block_of_key;
  std::vector<std::vector<SwitchId>> keys;
  f.blocks_.clear();
  std::vector<std::string> isolated;
  for (size_t h = 0; h < f.hosts_.size(); ++h) {
    Host& host = f.hosts_[h];
    std::vector<SwitchId> key, minor_key;
    for (NicId n : host.nics) {
      const SwitchId leaf = f.nics_[n].leaf;
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

  // A host that lost some NICs reaches a strict subset of its block's leaves; it joins
  // the one block whose leaf set contains its own, rather than forming a block of one.
  std::vector<int32_t> merged_into(keys.size());
  std::vector<std::string> partial;
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
  DenseIds block_ids;
  std::vector<int32_t> final_block(keys.size());
  for (size_t k = 0; k < keys.size(); ++k) {
    size_t root = k;
    while (merged_into[root] != static_cast<int32_t>(root)) root = merged_into[root];
    final_block[k] = -1;
    merged_into[k] = static_cast<int32_t>(root);
  }
  for (size_t h = 0; h < f.hosts_.size(); ++h) {
    Host& host = f.hosts_[h];
    if (host.block < 0) continue;
    const int32_t key = host.block;
    const int32_t root = merged_into[key];
    if (final_block[root] < 0) {
      final_block[root] = block_ids.Get(root);
      f.blocks_.emplace_back();
      f.blocks_.back().leaves = keys[root];
    }
    host.block = final_block[root];
    f.blocks_[host.block].hosts.push_back(static_cast<HostId>(h));
    if (key != root) {
      partial.push_back(
          absl::StrCat(host.name, " (", keys[key].size(), " of ", keys[root].size(), " leaves)"));
    }
  }
  AddGroupedWarning(warnings, "hosts reach only part of their block's leaves", partial);
  // A whole block short of a rail of the main network lost a leaf (or its cables): its
  // hosts keep the block.
  std::vector<bool> main_rail(f.rails_.size(), false);
  for (size_t r = 0; r < f.rails_.size(); ++r) {
    for (SwitchId leaf : f.rails_[r].leaves) main_rail[r] = main_rail[r] || !minor_island[leaf];
  }
  std::vector<std::string> short_blocks;
  for (const Block& block : f.blocks_) {
    std::vector<bool> reached(f.rails_.size(), false);
    for (SwitchId leaf : block.leaves) {
      if (f.switches_[leaf].rail >= 0) reached[f.switches_[leaf].rail] = true;
    }
    std::vector<std::string> missing;
    for (size_t r = 0; r < reached.size(); ++r) {
      if (!reached[r] && main_rail[r]) missing.push_back(absl::StrCat(r));
    }
    if (missing.empty() || block.hosts.empty()) continue;
    short_blocks.push_back(absl::StrCat("the block of ", f.hosts_[block.hosts.front()].name, " (",
                                        block.hosts.size(), " hosts) lacks rail ",
                                        absl::StrJoin(missing, ", ")));
  }
  AddGroupedWarning(warnings, "blocks reach no leaf of some rail (a lost leaf?)", short_blocks);
  for (Switch& sw : f.switches_) sw.block = -1;
  std::vector<int32_t> leaf_blocks(num_switches, 0);
  for (size_t b = 0; b < f.blocks_.size(); ++b) {
    for (SwitchId leaf : f.blocks_[b].leaves) {
      f.switches_[leaf].block = ++leaf_blocks[leaf] == 1 ? static_cast<int32_t>(b) : -1;
    }
  }

  // 5. Domains per tier: leaves joined through switches of tier <= k share a domain.
  f.leaf_domain_.assign(max_tier, std::vector<int32_t>(num_switches, -1));
  for (int32_t k = 1; k <= max_tier; ++k) {
    std::vector<size_t> rank(num_switches), parent(num_switches);
    boost::disjoint_sets<size_t*, size_t*> sets(rank.data(), parent.data());
    for (size_t s = 0; s < num_switches; ++s) sets.make_set(s);
    for (size_t s = 0; s < num_switches; ++s) {
      if (f.switches_[s].tier < 1 || f.switches_[s].tier > k) continue;
      for (SwitchId n : up[s].switches) {
        if (f.switches_[n].tier >= 1 && f.switches_[n].tier <= k)
          sets.union_set(s, static_cast<size_t>(n));
      }
    }
    DenseIds ids;
    for (size_t s = 0; s < num_switches; ++s) {
      if (f.switches_[s].tier == 1) f.leaf_domain_[k - 1][s] = ids.Get(sets.find_set(s));
    }
  }

  // 6. Pods: blocks whose leaves meet at the spine tier (the leaf tier in one-tier fabrics).
  f.pods_.clear();
  if (!f.blocks_.empty() && max_tier >= 1) {
    const int32_t pod_tier = std::min<int32_t>(2, max_tier);
    absl::flat_hash_map<int32_t, int32_t> pod_of_domain;
    std::vector<size_t> rank(f.blocks_.size()), parent(f.blocks_.size());
    boost::disjoint_sets<size_t*, size_t*> sets(rank.data(), parent.data());
    for (size_t b = 0; b < f.blocks_.size(); ++b) sets.make_set(b);
    for (size_t b = 0; b < f.blocks_.size(); ++b) {
      for (SwitchId leaf : f.blocks_[b].leaves) {
        auto [it, inserted] =
            pod_of_domain.try_emplace(f.leaf_domain_[pod_tier - 1][leaf], static_cast<int32_t>(b));
        if (!inserted) sets.union_set(b, static_cast<size_t>(it->second));
      }
    }
    DenseIds ids;
    for (size_t b = 0; b < f.blocks_.size(); ++b) {
      const int32_t pod = ids.Get(sets.find_set(b));
      if (static_cast<size_t>(pod) >= f.pods_.size()) f.pods_.resize(pod + 1);
      f.blocks_[b].pod = pod;
      f.pods_[pod].blocks.push_back(static_cast<int32_t>(b));
    }
  }
  for (Host& host : f.hosts_) host.pod = host.block >= 0 ? f.blocks_[host.block].pod : -1;

  // 7. NVLink domains: declared names, else the host alone.
  f.nvlink_domains_.clear();
  absl::flat_hash_map<std::string, int32_t> domain_by_name;
  for (size_t h = 0; h < f.hosts_.size(); ++h) {
    Host& host = f.hosts_[h];
    int32_t id = static_cast<int32_t>(f.nvlink_domains_.size());
    if (!host.nvlink_domain.empty()) {
      id = domain_by_name.try_emplace(host.nvlink_domain, id).first->second;
    }
    if (static_cast<size_t>(id) == f.nvlink_domains_.size()) f.nvlink_domains_.emplace_back();
    f.nvlink_domains_[id].push_back(static_cast<HostId>(h));
    host.nvlink_domain_id = id;
  }
  WarnAboutNvlinkDomains(f.hosts_, f.nvlink_domains_, warnings);

  // 8. Bandwidth down and up per tier, for oversubscription.
  f.tier_stats_.assign(max_tier, TierStats{});
  for (int32_t k = 1; k <= max_tier; ++k) f.tier_stats_[k - 1].tier = k;
  for (const Switch& sw : f.switches_) {
    if (sw.tier >= 1) ++f.tier_stats_[sw.tier - 1].switches;
  }
  for (const Link& link : f.links_) {
    auto tier_of = [&f](Endpoint e) {
      return e.kind == Endpoint::Kind::kNic ? 0 : f.switches_[e.id].tier;
    };
    const int32_t ta = tier_of(link.a);
    const int32_t tb = tier_of(link.b);
    if (ta == tb) continue;
    const int32_t low = std::min(ta, tb);
    const int32_t high = std::max(ta, tb);
    if (low < 0 || (low == 0 && (link.a.kind == Endpoint::Kind::kSwitch &&
                                 link.b.kind == Endpoint::Kind::kSwitch))) {
      continue;  // a switch that reaches no host
    }
    f.tier_stats_[high - 1].down_gbps += link.bandwidth_gbps();
    if (low >= 1) f.tier_stats_[low - 1].up_gbps += link.bandwidth_gbps();
  }
}

}  // namespace topoplace
