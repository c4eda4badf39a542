#include "telemetry/health/job_path.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"

namespace topoplace::telemetry {

bool JobPath::TouchesLink(LinkId link) const {
  return std::binary_search(links.begin(), links.end(), link);
}

bool JobPath::TouchesSwitch(SwitchId s) const {
  return std::binary_search(switches.begin(), switches.end(), s);
}

JobPath PathOfGpus(const Fabric& fabric, const std::vector<GpuId>& gpus) {
  absl::flat_hash_set<NicId> nics;
  for (GpuId g : gpus) {
    if (g >= 0 && g < static_cast<GpuId>(fabric.gpus().size()) && fabric.gpus()[g].nic >= 0) {
      nics.insert(fabric.gpus()[g].nic);
    }
  }
  absl::flat_hash_set<LinkId> links;
  absl::flat_hash_set<SwitchId> level;  // switches reached so far at the current tier
  for (LinkId l = 0; l < static_cast<LinkId>(fabric.links().size()); ++l) {
    const Link& link = fabric.links()[l];
    for (const auto& [nic_end, other] : {std::pair{link.a, link.b}, std::pair{link.b, link.a}}) {
      if (nic_end.kind == Endpoint::Kind::kNic && nics.contains(nic_end.id) &&
          other.kind == Endpoint::Kind::kSwitch) {
        links.insert(l);
        level.insert(other.id);
      }
    }
  }
  absl::flat_hash_set<SwitchId> switches(level.begin(), level.end());
  // Same-index GPUs talk over their rail (cross-rail traffic crosses NVLink first), so
  // only rails whose NICs land on more than one leaf send traffic up.
  absl::flat_hash_map<int32_t, absl::flat_hash_set<SwitchId>> rail_leaves;
  for (SwitchId leaf : level) rail_leaves[fabric.switches()[leaf].rail].insert(leaf);
  level.clear();
  for (const auto& [rail, leaves] : rail_leaves) {
    if (leaves.size() > 1) level.insert(leaves.begin(), leaves.end());
  }
  // Climb while the traffic spans more than one switch of the current tier.
  for (int tier = 1; level.size() > 1 && tier < kMaxSwitchTier; ++tier) {
    absl::flat_hash_set<SwitchId> up;
    for (LinkId l = 0; l < static_cast<LinkId>(fabric.links().size()); ++l) {
      const Link& link = fabric.links()[l];
      if (link.a.kind != Endpoint::Kind::kSwitch || link.b.kind != Endpoint::Kind::kSwitch) {
        continue;
      }
      for (const auto& [low, high] :
           {std::pair{link.a.id, link.b.id}, std::pair{link.b.id, link.a.id}}) {
        if (level.contains(low) && fabric.switches()[high].tier == tier + 1) {
          links.insert(l);
          up.insert(high);
        }
      }
    }
    // Several spines reached from one leaf do not mean the traffic spans spine groups:
    // climb further only if the leaves lie in different tier-2 domains.
    if (tier == 1) {
      absl::flat_hash_set<int32_t> domains;
      for (SwitchId leaf : level) {
        if (fabric.switches()[leaf].tier == 1 && fabric.max_tier() >= 2)
          domains.insert(fabric.LeafDomain(leaf, 2));
      }
      switches.insert(up.begin(), up.end());
      if (domains.size() <= 1) break;
    } else {
      switches.insert(up.begin(), up.end());
    }
    level = std::move(up);
  }
  JobPath path;
  path.links.assign(links.begin(), links.end());
  path.switches.assign(switches.begin(), switches.end());
  std::sort(path.links.begin(), path.links.end());
  std::sort(path.switches.begin(), path.switches.end());
  return path;
}

}  // namespace topoplace::telemetry
