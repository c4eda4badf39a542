// What is free, in what shape: the figures an operator reads before "why is this job
// waiting". At each placement level the fabric has (NVLink domain where domains span
// hosts, block, pod where there are several, the cluster), every domain's free GPUs (on
// usable hosts) and free hosts (usable, every GPU free), and per level the freest domain:
// the largest whole-host job that fits in one such domain now. And the idle hosts by the
// size of the idle run they sit in (a run: the idle hosts of one NVLink domain, or of one
// block where every host is its own domain), as a dashboard of segment sizes shows them.
//
//   const FreeCapacity free = MeasureFreeCapacity(fabric, occupancy, health);
//   for (const FreeCapacity::Level& l : free.levels) ... l.largest_hosts ...
//
// O(hosts + GPUs). Reads its inputs only.
#ifndef TOPOPLACE_SCHEDULER_STATE_FREE_CAPACITY_H_
#define TOPOPLACE_SCHEDULER_STATE_FREE_CAPACITY_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "scheduler/state/health.h"
#include "scheduler/state/occupancy.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

struct FreeCapacity {
  struct Domain {
    std::string name;            // the NVLink domain's name, "block 3", "pod 1", "cluster"
    int64_t free_gpus = 0;       // free GPUs of usable hosts
    int64_t free_hosts = 0;      // usable hosts with every GPU free
    int64_t free_host_gpus = 0;  // the GPUs of those hosts
    int64_t hosts = 0;           // all its hosts
  };
  struct Level {
    std::string level;  // "nvlink_domain", "block", "pod" or "cluster"
    std::vector<Domain> domains;
    // The domain with the most free hosts (the first of equals): the largest job of whole
    // hosts one domain of this level can take now.
    int64_t largest_hosts = 0, largest_gpus = 0;
  };
  std::vector<Level> levels;  // from the smallest level up; "cluster" last
  // Run size -> idle hosts in runs of that size (0 runs are left out).
  std::map<int64_t, int64_t> idle_hosts_by_run;
};

FreeCapacity MeasureFreeCapacity(const Fabric& fabric, const Occupancy& occupancy,
                                 const HealthView& health);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_STATE_FREE_CAPACITY_H_
