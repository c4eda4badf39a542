#include "telemetry/probe/probe_plan.h"

#include "absl/strings/str_cat.h"

namespace topoplace::telemetry {
namespace {

// SplitMix64: a cheap, well-mixed hash for deterministic sampling.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

absl::Status ValidatePlanOptions(const ProbePlanOptions& o) {
  if (o.spine_samples < 0 || o.spine_samples > 64) {
    return absl::InvalidArgumentError(
        absl::StrCat("spine_samples: expected 0..64, got ", o.spine_samples));
  }
  if (o.max_probes_per_round < 1 || o.max_probes_per_round > 1024) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_probes_per_round: expected 1..1024, got ", o.max_probes_per_round));
  }
  if (o.interval < kMinProbeInterval) {
    return absl::InvalidArgumentError(absl::StrCat("interval: expected at least ",
                                                   absl::FormatDuration(kMinProbeInterval),
                                                   ", got ", absl::FormatDuration(o.interval)));
  }
  return absl::OkStatus();
}

std::vector<PlannedProbe> PlanProbes(const Fabric& fabric, HostId host,
                                     const ProbePlanOptions& options, uint64_t round) {
  std::vector<PlannedProbe> same_leaf;
  std::vector<PlannedProbe> spine;
  for (NicId local : fabric.hosts()[host].nics) {
    const Nic& nic = fabric.nics()[local];
    if (nic.leaf < 0) continue;
    std::vector<NicId> leaf_peers;
    std::vector<NicId> rail_peers;
    for (NicId n = 0; n < static_cast<NicId>(fabric.nics().size()); ++n) {
      const Nic& other = fabric.nics()[n];
      if (other.host == host || other.leaf < 0) continue;
      if (other.leaf == nic.leaf) {
        leaf_peers.push_back(n);
      } else if (other.index == nic.index) {
        rail_peers.push_back(n);
      }
    }
    if (!leaf_peers.empty()) {
      const NicId peer = leaf_peers[(round + static_cast<uint64_t>(host)) % leaf_peers.size()];
      same_leaf.push_back({local, peer, fabric.NicTier(local, peer)});
    }
    for (int s = 0; s < options.spine_samples && !rail_peers.empty(); ++s) {
      const uint64_t pick = Mix(round * 1000003 + static_cast<uint64_t>(local) * 131 + s);
      const size_t i = pick % rail_peers.size();
      const NicId peer = rail_peers[i];
      rail_peers.erase(rail_peers.begin() + static_cast<std::ptrdiff_t>(i));
      spine.push_back({local, peer, fabric.NicTier(local, peer)});
    }
  }
  std::vector<PlannedProbe> plan = std::move(same_leaf);
  plan.insert(plan.end(), spine.begin(), spine.end());
  if (plan.size() > static_cast<size_t>(options.max_probes_per_round)) {
    plan.resize(static_cast<size_t>(options.max_probes_per_round));
  }
  return plan;
}

}  // namespace topoplace::telemetry
