#include "scheduler/mapping/rank_map.h"

#include "absl/strings/str_cat.h"

namespace topoplace::sched {

NicId GpuNic(const Fabric& fabric, const Host& host, GpuId gpu) {
  const NicId nic = fabric.gpus()[gpu].nic;
  if (nic >= 0 || host.nics.empty()) return nic;
  return host.nics[fabric.gpus()[gpu].index % host.nics.size()];
}

int SnakeStageNodes(const JobSpec& job) {
  const int g = job.gpus_per_node;
  if (job.order != RankOrder::kTpCpEpDpPp || job.cp != 1 || job.ep != 1) return 0;
  if (job.tp >= g || g % job.tp != 0) return 0;
  const int64_t stage_gpus = int64_t{job.tp} * job.dp;
  if (stage_gpus % g != 0 || stage_gpus / g < 2) return 0;
  return static_cast<int>(stage_gpus / g);
}

absl::StatusOr<std::vector<RankSlot>> MapRanks(const Fabric& fabric, const JobSpec& job,
                                               std::span<const HostId> node_hosts,
                                               const Occupancy& occupancy) {
  const int g = job.gpus_per_node;
  const int stage_nodes = SnakeStageNodes(job);
  const int groups = g / job.tp;  // TP groups per node
  // Which free GPU of its node each local rank takes, in node order and in a reversed
  // (snake) node: computed once, not per rank.
  std::vector<int> position[2];
  for (const bool reversed : {false, true}) {
    for (int local = 0; local < g; ++local) {
      const int group = local / job.tp;
      position[reversed].push_back((reversed ? groups - 1 - group : group) * job.tp +
                                   local % job.tp);
    }
  }
  std::vector<GpuId> free;
  std::vector<RankSlot> slots;
  slots.reserve(node_hosts.size() * static_cast<size_t>(g));
  for (size_t k = 0; k < node_hosts.size(); ++k) {
    const HostId h = node_hosts[k];
    if (h < 0 || static_cast<size_t>(h) >= fabric.hosts().size()) {
      return absl::InvalidArgumentError(absl::StrCat("node ", k, " is host ", h,
                                                     ", but the fabric has hosts 0 to ",
                                                     fabric.hosts().size() - 1));
    }
    const Host& host = fabric.hosts()[h];
    free.clear();
    for (GpuId gpu : host.gpus) {
      if (occupancy.busy(gpu)) continue;
      free.push_back(gpu);
      if (static_cast<int>(free.size()) == g) break;
    }
    if (static_cast<int>(free.size()) < g) {
      return absl::FailedPreconditionError(absl::StrCat(
          "host ", host.name, " has ", free.size(), " free GPUs, the job needs ", g, " per node"));
    }
    const bool reversed = stage_nodes > 0 && (k % stage_nodes) % 2 == 1;
    for (const int p : position[reversed]) {
      slots.push_back(RankSlot{h, free[p], GpuNic(fabric, host, free[p])});
    }
  }
  return slots;
}

}  // namespace topoplace::sched
