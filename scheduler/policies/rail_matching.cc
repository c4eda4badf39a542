#include "scheduler/policies/rail_matching.h"

#include <bit>

#include "absl/container/flat_hash_map.h"

namespace topoplace::sched {
namespace {

// Bit i set when local GPU i is among the first `g` free GPUs of `host` (what MapRanks
// takes); 0 when the host has more than 64 GPUs.
uint64_t TakenIndices(const Fabric& fabric, const Occupancy& occupancy, const Host& host, int g) {
  if (host.gpus.size() > 64) return 0;
  uint64_t bits = 0;
  int taken = 0;
  for (GpuId gpu : host.gpus) {
    if (taken == g) break;
    if (occupancy.busy(gpu)) continue;
    bits |= uint64_t{1} << fabric.gpus()[gpu].index;
    ++taken;
  }
  return bits;
}

}  // namespace

std::optional<std::vector<HostId>> RailMatchedHosts(const Inventory& inv, const JobSpec& job,
                                                    int32_t block, int count) {
  const Fabric& fabric = inv.fabric();
  const int g = job.gpus_per_node;
  // Hosts per index set, in host order, until one set has `count`.
  absl::flat_hash_map<uint64_t, std::vector<HostId>> by_indices;
  int seen = 0;
  for (HostId h : fabric.blocks()[block].hosts) {
    if (!inv.eligible(h)) continue;
    const uint64_t set = TakenIndices(fabric, inv.occupancy(), fabric.hosts()[h], g);
    if (set == 0 || std::popcount(set) != g) return std::nullopt;
    ++seen;
    std::vector<HostId>& hosts = by_indices[set];
    hosts.push_back(h);
    if (static_cast<int>(hosts.size()) == count) {
      // A set complete after exactly `count` eligible hosts is the set of all of them: the
      // plain best fit, rail-matched already.
      if (seen == count) return std::nullopt;
      return std::move(hosts);
    }
  }
  return std::nullopt;
}

}  // namespace topoplace::sched
