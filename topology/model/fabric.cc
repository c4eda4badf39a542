#include "topology/model/fabric.h"

#include "absl/strings/str_cat.h"

namespace topoplace {

absl::string_view TierName(Tier tier) {
  switch (tier) {
    case Tier::kNvlink:
      return "nvlink";
    case Tier::kLeaf:
      return "leaf";
    case Tier::kSpine:
      return "spine";
    case Tier::kCore:
      return "core";
    case Tier::kUnreachable:
      break;
  }
  return "unreachable";
}

int SwitchHops(Tier tier) {
  if (tier == Tier::kUnreachable) return -1;
  if (tier == Tier::kNvlink) return 0;
  // Up through tiers 1..k and back down to tier 1: 2k - 1 switches.
  return 2 * static_cast<int>(tier) - 1;
}

absl::string_view LinkStateName(LinkState state) {
  switch (state) {
    case LinkState::kUp:
      return "up";
    case LinkState::kDegraded:
      return "degraded";
    case LinkState::kDown:
      return "down";
  }
  return "up";
}

std::optional<double> TierStats::oversubscription() const {
  if (up_gbps <= 0) return std::nullopt;
  return down_gbps / up_gbps;
}

namespace {
template <typename Map>
std::optional<int32_t> Lookup(const Map& map, absl::string_view key) {
  auto it = map.find(key);
  if (it == map.end()) return std::nullopt;
  return it->second;
}
}  // namespace

std::optional<HostId> Fabric::FindHost(absl::string_view name) const {
  return Lookup(host_by_name_, name);
}
std::optional<SwitchId> Fabric::FindSwitch(absl::string_view name) const {
  return Lookup(switch_by_name_, name);
}
std::optional<NicId> Fabric::FindNic(absl::string_view host_slash_nic) const {
  return Lookup(nic_by_name_, host_slash_nic);
}
std::optional<GpuId> Fabric::FindGpu(absl::string_view host, int32_t index) const {
  const std::optional<HostId> h = FindHost(host);
  if (!h) return std::nullopt;
  for (GpuId g : hosts_[*h].gpus) {
    if (gpus_[g].index == index) return g;
  }
  return std::nullopt;
}

std::string Fabric::EndpointName(Endpoint e) const {
  if (e.kind == Endpoint::Kind::kSwitch) return switches_[e.id].name;
  const Nic& nic = nics_[e.id];
  return absl::StrCat(hosts_[nic.host].name, "/", nic.name);
}

std::string Fabric::GpuName(GpuId gpu) const {
  return absl::StrCat(hosts_[gpus_[gpu].host].name, "/gpu", gpus_[gpu].index);
}

Tier Fabric::NicTier(NicId a, NicId b) const {
  const SwitchId leaf_a = nics_[a].leaf;
  const SwitchId leaf_b = nics_[b].leaf;
  if (leaf_a < 0 || leaf_b < 0) return Tier::kUnreachable;
  for (size_t k = 0; k < leaf_domain_.size(); ++k) {
    if (leaf_domain_[k][leaf_a] == leaf_domain_[k][leaf_b]) {
      // Fabrics deeper than three tiers report everything above the spine as core.
      return static_cast<Tier>(std::min<size_t>(k + 1, kMaxSwitchTier));
    }
  }
  return Tier::kUnreachable;
}

Tier Fabric::GpuTier(GpuId a, GpuId b) const {
  const Gpu& ga = gpus_[a];
  const Gpu& gb = gpus_[b];
  if (hosts_[ga.host].nvlink_domain_id == hosts_[gb.host].nvlink_domain_id) {
    return Tier::kNvlink;
  }
  if (ga.nic < 0 || gb.nic < 0) return Tier::kUnreachable;
  return NicTier(ga.nic, gb.nic);
}

int32_t Fabric::LeafDomain(SwitchId leaf, int tier) const { return leaf_domain_[tier - 1][leaf]; }

}  // namespace topoplace
