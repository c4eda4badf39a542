// The simulator's view of free capacity: the engine's Occupancy plus a histogram of hosts
// by free-GPU count, so that "could a job of n nodes x g GPUs fit at all?" and "how many
// free GPUs sit on hosts with fewer than g free?" are O(GPUs per host) instead of O(hosts).
//
// Not thread-safe.
#ifndef TOPOPLACE_SCHEDULER_SIM_CLUSTER_STATE_H_
#define TOPOPLACE_SCHEDULER_SIM_CLUSTER_STATE_H_

#include <cstdint>
#include <span>
#include <vector>

#include "scheduler/job/job_spec.h"
#include "scheduler/state/occupancy.h"
#include "topology/model/fabric.h"

namespace topoplace::sched::sim {

class ClusterState {
 public:
  // Everything free. `fabric` must outlive the state.
  explicit ClusterState(const Fabric& fabric);

  const Occupancy& occupancy() const { return occupancy_; }
  int64_t total_gpus() const { return occupancy_.gpu_count(); }
  int64_t busy_gpus() const { return occupancy_.busy_gpu_count(); }
  int64_t free_gpus() const { return total_gpus() - busy_gpus(); }

  // Hosts with at least `g` free GPUs.
  int64_t HostsWithFree(int g) const;
  // True if enough hosts have gpus_per_node free GPUs for the job: necessary for any
  // placement (sufficient only for policies without domain rules).
  bool FitsByCount(const JobSpec& job) const {
    return HostsWithFree(job.gpus_per_node) >= job.nodes();
  }
  // True if the job would fit by count on the empty fabric.
  bool FitsEmptyFabric(const JobSpec& job) const;
  // Free GPUs on hosts that have fewer than `g` free: unusable by a job needing g per node.
  int64_t FreeGpusOnHostsBelow(int g) const;

  // Marks `gpus` busy / free. Preconditions: each is free / busy respectively.
  void Allocate(std::span<const GpuId> gpus);
  void Release(std::span<const GpuId> gpus);

 private:
  void SetGpu(GpuId gpu, bool busy);

  const Fabric* fabric_;
  Occupancy occupancy_;
  std::vector<int64_t> hosts_by_free_;      // index = free GPUs on the host
  std::vector<int64_t> hosts_by_capacity_;  // index = GPUs on the host
};

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_CLUSTER_STATE_H_
