#include "plugins/common/domain_tree.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace topoplace::plugins {
namespace {

int Digits(size_t count) {
  int digits = 1;
  for (size_t n = count > 1 ? count - 1 : 1; n >= 10; n /= 10) ++digits;
  return digits;
}

std::vector<std::string> Names(absl::string_view prefix, size_t count, int min_digits) {
  const int digits = std::max(min_digits, Digits(count));
  std::vector<std::string> names;
  names.reserve(count);
  for (size_t i = 0; i < count; ++i) names.push_back(absl::StrFormat("%s-%0*d", prefix, digits, i));
  return names;
}

}  // namespace

DomainTree BuildDomainTree(const Fabric& fabric, const HostFilter& keep) {
  DomainTree t;
  t.block_names = Names("block", fabric.blocks().size(), 2);
  t.pod_names = Names("pod", fabric.pods().size(), 1);
  t.exported.assign(fabric.hosts().size(), false);
  for (size_t h = 0; h < fabric.hosts().size(); ++h) {
    const HostId id = static_cast<HostId>(h);
    if (fabric.hosts()[h].block < 0) {
      if (!keep || keep(id)) t.isolated_hosts.push_back(id);
    } else if (keep && !keep(id)) {
      t.filtered_out.push_back(id);
    } else {
      t.exported[h] = true;
    }
  }
  t.block_hosts.resize(fabric.blocks().size());
  for (size_t b = 0; b < fabric.blocks().size(); ++b) {
    for (HostId h : fabric.blocks()[b].hosts) {
      if (t.exported[h]) t.block_hosts[b].push_back(h);
    }
  }
  t.pod_blocks.resize(fabric.pods().size());
  for (size_t p = 0; p < fabric.pods().size(); ++p) {
    for (int32_t b : fabric.pods()[p].blocks) {
      if (!t.block_hosts[b].empty()) t.pod_blocks[p].push_back(b);
    }
    t.block_order.insert(t.block_order.end(), t.pod_blocks[p].begin(), t.pod_blocks[p].end());
  }
  // Islands (and their names) over every pod, then only pods with exported blocks.
  std::vector<std::vector<int32_t>> islands;
  absl::flat_hash_map<int32_t, size_t> island_of_domain;
  for (size_t p = 0; p < fabric.pods().size(); ++p) {
    const SwitchId leaf = fabric.blocks()[fabric.pods()[p].blocks[0]].leaves[0];
    const int32_t domain = fabric.LeafDomain(leaf, fabric.max_tier());
    auto [it, inserted] = island_of_domain.try_emplace(domain, islands.size());
    if (inserted) islands.emplace_back();
    islands[it->second].push_back(static_cast<int32_t>(p));
  }
  const std::vector<std::string> island_names = Names("core", islands.size(), 1);
  for (size_t i = 0; i < islands.size(); ++i) {
    std::vector<int32_t> pods;
    for (int32_t p : islands[i]) {
      if (!t.pod_blocks[p].empty()) pods.push_back(p);
    }
    if (pods.empty()) continue;
    t.islands.push_back(std::move(pods));
    t.island_names.push_back(island_names[i]);
  }
  return t;
}

}  // namespace topoplace::plugins
