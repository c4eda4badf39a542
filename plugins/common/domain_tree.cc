#include "plugins/common/domain_tree.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace topoplace::exporters {
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

DomainTree BuildDomainTree(const Fabric& fabric) {
  DomainTree t;
  t.block_names = Names("block", fabric.blocks().size(), 2);
  t.pod_names = Names("pod", fabric.pods().size(), 1);
  for (const Pod& pod : fabric.pods()) {
    t.block_order.insert(t.block_order.end(), pod.blocks.begin(), pod.blocks.end());
  }
  absl::flat_hash_map<int32_t, size_t> island_of_domain;
  for (size_t p = 0; p < fabric.pods().size(); ++p) {
    const SwitchId leaf = fabric.blocks()[fabric.pods()[p].blocks[0]].leaves[0];
    const int32_t domain = fabric.LeafDomain(leaf, fabric.max_tier());
    auto [it, inserted] = island_of_domain.try_emplace(domain, t.islands.size());
    if (inserted) t.islands.emplace_back();
    t.islands[it->second].push_back(static_cast<int32_t>(p));
  }
  t.island_names = Names("core", t.islands.size(), 1);
  for (size_t h = 0; h < fabric.hosts().size(); ++h) {
    if (fabric.hosts()[h].block < 0) t.isolated_hosts.push_back(static_cast<HostId>(h));
  }
  return t;
}

}  // namespace topoplace::exporters
