#include "scheduler/sim/cluster_state.h"

#include <algorithm>

namespace topoplace::sched::sim {
namespace {

size_t MaxGpusPerHost(const Fabric& fabric) {
  size_t most = 0;
  for (const Host& h : fabric.hosts()) most = std::max(most, h.gpus.size());
  return most;
}

int64_t CountAtLeast(const std::vector<int64_t>& histogram, int g) {
  int64_t n = 0;
  for (size_t k = static_cast<size_t>(std::max(g, 0)); k < histogram.size(); ++k) {
    n += histogram[k];
  }
  return n;
}

}  // namespace

ClusterState::ClusterState(const Fabric& fabric)
    : fabric_(&fabric),
      occupancy_(fabric),
      hosts_by_free_(MaxGpusPerHost(fabric) + 1, 0),
      hosts_by_capacity_(MaxGpusPerHost(fabric) + 1, 0) {
  for (const Host& h : fabric.hosts()) {
    ++hosts_by_free_[h.gpus.size()];
    ++hosts_by_capacity_[h.gpus.size()];
  }
}

int64_t ClusterState::HostsWithFree(int g) const { return CountAtLeast(hosts_by_free_, g); }

bool ClusterState::FitsEmptyFabric(const JobSpec& job) const {
  return CountAtLeast(hosts_by_capacity_, job.gpus_per_node) >= job.nodes();
}

int64_t ClusterState::FreeGpusOnHostsBelow(int g) const {
  int64_t gpus = 0;
  const int top = std::min<int>(g, static_cast<int>(hosts_by_free_.size()));
  for (int k = 1; k < top; ++k) gpus += k * hosts_by_free_[k];
  return gpus;
}

void ClusterState::SetGpu(GpuId gpu, bool busy) {
  const HostId host = fabric_->gpus()[gpu].host;
  --hosts_by_free_[occupancy_.free_gpus(host)];
  occupancy_.Set(gpu, busy);
  ++hosts_by_free_[occupancy_.free_gpus(host)];
}

void ClusterState::Allocate(std::span<const GpuId> gpus) {
  for (GpuId g : gpus) SetGpu(g, true);
}

void ClusterState::Release(std::span<const GpuId> gpus) {
  for (GpuId g : gpus) SetGpu(g, false);
}

}  // namespace topoplace::sched::sim
