#include "scheduler/state/free_capacity.h"

#include <functional>

#include "absl/strings/str_cat.h"

namespace topoplace::sched {
namespace {

// One level's domains from the hosts each holds, with their free figures.
FreeCapacity::Level Measure(std::string level, const std::vector<std::vector<HostId>>& hosts_of,
                            const std::function<std::string(size_t)>& name_of, const Fabric& fabric,
                            const Occupancy& occupancy, const HealthView& health) {
  FreeCapacity::Level out;
  out.level = std::move(level);
  for (size_t d = 0; d < hosts_of.size(); ++d) {
    FreeCapacity::Domain domain;
    domain.name = name_of(d);
    domain.hosts = static_cast<int64_t>(hosts_of[d].size());
    for (HostId h : hosts_of[d]) {
      if (!health.host_usable(h)) continue;
      const int64_t gpus = static_cast<int64_t>(fabric.hosts()[static_cast<size_t>(h)].gpus.size());
      const int64_t free = occupancy.free_gpus(h);
      domain.free_gpus += free;
      if (gpus > 0 && free == gpus) {
        ++domain.free_hosts;
        domain.free_host_gpus += gpus;
      }
    }
    if (domain.free_hosts > out.largest_hosts) {
      out.largest_hosts = domain.free_hosts;
      out.largest_gpus = domain.free_host_gpus;
    }
    out.domains.push_back(std::move(domain));
  }
  return out;
}

}  // namespace

FreeCapacity MeasureFreeCapacity(const Fabric& fabric, const Occupancy& occupancy,
                                 const HealthView& health) {
  FreeCapacity free;
  const std::vector<std::vector<HostId>>& racks = fabric.nvlink_domains();
  const bool nvlink_level = racks.size() < fabric.hosts().size();
  if (nvlink_level) {
    free.levels.push_back(Measure(
        "nvlink_domain", racks,
        [&](size_t d) {
          const std::string& name =
              fabric.hosts()[static_cast<size_t>(racks[d].front())].nvlink_domain;
          return name.empty() ? absl::StrCat("domain ", d) : name;
        },
        fabric, occupancy, health));
  }
  std::vector<std::vector<HostId>> blocks;
  for (const Block& b : fabric.blocks()) blocks.push_back(b.hosts);
  if (!blocks.empty()) {
    free.levels.push_back(Measure(
        "block", blocks, [](size_t b) { return absl::StrCat("block ", b); }, fabric, occupancy,
        health));
  }
  if (fabric.pods().size() > 1) {
    std::vector<std::vector<HostId>> pods(fabric.pods().size());
    for (size_t p = 0; p < fabric.pods().size(); ++p) {
      for (int32_t b : fabric.pods()[p].blocks) {
        const std::vector<HostId>& hosts = fabric.blocks()[static_cast<size_t>(b)].hosts;
        pods[p].insert(pods[p].end(), hosts.begin(), hosts.end());
      }
    }
    free.levels.push_back(Measure(
        "pod", pods, [](size_t p) { return absl::StrCat("pod ", p); }, fabric, occupancy, health));
  }
  std::vector<std::vector<HostId>> all(1);
  for (HostId h = 0; h < static_cast<HostId>(fabric.hosts().size()); ++h) all[0].push_back(h);
  free.levels.push_back(Measure(
      "cluster", all, [](size_t) { return std::string("cluster"); }, fabric, occupancy, health));
  // Runs: the idle hosts of each NVLink domain, or of each block where domains are hosts.
  const FreeCapacity::Level& runs = free.levels.front();
  for (const FreeCapacity::Domain& d : runs.domains) {
    if (d.free_hosts > 0) free.idle_hosts_by_run[d.free_hosts] += d.free_hosts;
  }
  return free;
}

}  // namespace topoplace::sched
