#include "scheduler/mapping/rank_map.h"

#include "absl/strings/str_cat.h"

namespace topoplace::sched {

NicId GpuNic(const Fabric& fabric, const Host& host, GpuId gpu) {
  const NicId nic = fabric.gpus()[gpu].nic;
  if (nic >= 0 || host.nics.empty()) return nic;
  return host.nics[fabric.gpus()[gpu].index % host.nics.size()];
}

absl::StatusOr<std::vector<RankSlot>> MapRanks(const Fabric& fabric, const JobSpec& job,
                                               std::span<const HostId> node_hosts,
                                               const Occupancy& occupancy) {
  const int g = job.gpus_per_node;
  std::vector<RankSlot> slots;
  slots.reserve(node_hosts.size() * static_cast<size_t>(g));
  for (const HostId h : node_hosts) {
    const Host& host = fabric.hosts()[h];
    int local = 0;
    for (GpuId gpu : host.gpus) {
      if (occupancy.busy(gpu)) continue;
      slots.push_back(RankSlot{h, gpu, GpuNic(fabric, host, gpu)});
      if (++local == g) break;
    }
    if (local < g) {
      return absl::FailedPreconditionError(absl::StrCat(
          "host ", host.name, " has ", local, " free GPUs, the job needs ", g, " per node"));
    }
  }
  return slots;
}

}  // namespace topoplace::sched
