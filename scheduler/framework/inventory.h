// Per-request view of free capacity: which hosts can take one node of this job (healthy,
// not excluded, at least gpus_per_node free GPUs), counted per block and per pod, so that
// policies choose domains from counters instead of scanning hosts.
//
//   TP_ASSIGN_OR_RETURN(Inventory inv, Inventory::Build(fabric, occ, health, job));
//   if (inv.block_free(b) >= job.nodes()) ...
//
// Immutable after Build; thread-safe for readers. Holds references to its inputs.
#ifndef TOPOPLACE_SCHEDULER_FRAMEWORK_INVENTORY_H_
#define TOPOPLACE_SCHEDULER_FRAMEWORK_INVENTORY_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/state/health.h"
#include "scheduler/state/occupancy.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

class Inventory {
 public:
  // InvalidArgument if a host the job lists (hosts, exclude) is unknown or no host has
  // gpus_per_node GPUs.
  static absl::StatusOr<Inventory> Build(const Fabric& fabric, const Occupancy& occupancy,
                                         const HealthView& health, const JobSpec& job);

  // The same inventory with only `hosts` eligible (those of them that are), for a policy
  // that has chosen a host set and wants to arrange it with the block-level machinery.
  Inventory RestrictedTo(std::span<const HostId> hosts) const;

  const Fabric& fabric() const { return *fabric_; }
  const Occupancy& occupancy() const { return *occupancy_; }
  // True if `host` can run one node of the job.
  bool eligible(HostId host) const { return eligible_[host] != 0; }
  // Eligible hosts per block / pod / in total.
  int block_free(int32_t block) const { return block_free_[block]; }
  int pod_free(int32_t pod) const { return pod_free_[pod]; }
  int total_free() const { return total_free_; }
  // True when some NVLink domain spans several hosts; the nvlink_* counts below are kept
  // only then (elsewhere every host is its own domain and block counts say it all).
  bool nvlink_level() const { return !nvlink_free_.empty(); }
  // Eligible hosts of NVLink domain `d` (Fabric::nvlink_domains() index).
  int nvlink_free(int32_t d) const { return nvlink_free_[d]; }
  // Free GPUs of NVLink domain `d` (any host), for the NVLink fragmentation score.
  int nvlink_free_gpus(int32_t d) const { return nvlink_free_gpus_[d]; }
  int nvlink_total_gpus(int32_t d) const { return nvlink_total_gpus_[d]; }
  // Free GPUs of a block (any host), for the fragmentation score.
  int block_free_gpus(int32_t block) const { return block_free_gpus_[block]; }
  int block_total_gpus(int32_t block) const { return block_total_gpus_[block]; }
  // Why hosts were left out, for "cannot place" messages.
  int excluded_hosts() const { return excluded_; }
  int unhealthy_hosts() const { return unhealthy_; }
  int busy_hosts() const { return busy_; }

  // Which eligible hosts TakeHosts takes first: in host order, or (kHealthyFirst) those
  // whose NIC cables are all healthy before those with a degraded one (HealthView::
  // host_degraded), each in host order: the same hosts when none is degraded.
  enum class Take : uint8_t { kHostOrder, kHealthyFirst };
  // Appends the first `count` eligible hosts of `block` in `order`, skipping hosts already
  // in `taken` (a per-host flag array the caller owns, updated here). Returns how many it
  // appended. Precondition: count >= 0.
  int TakeHosts(int32_t block, int count, std::vector<uint8_t>& taken, std::vector<HostId>& out,
                Take order = Take::kHostOrder) const;
  // The same for a block nothing has been taken from yet, without the per-host flags
  // (what a candidate taking each of its blocks once needs): the hosts TakeHosts would
  // append with `taken` all clear.
  int TakeFromUntouchedBlock(int32_t block, int count, std::vector<HostId>& out,
                             Take order = Take::kHostOrder) const;
  // Appends the first `count` eligible hosts of NVLink domain `d`, in host order. Returns
  // how many it appended.
  int TakeFromDomain(int32_t d, int count, std::vector<HostId>& out) const;

 private:
  Inventory() = default;
  // TakeHosts, or TakeFromUntouchedBlock when `taken` is null.
  int TakeFromBlock(int32_t block, int count, std::vector<uint8_t>* taken, std::vector<HostId>& out,
                    Take order) const;
  const Fabric* fabric_ = nullptr;
  const Occupancy* occupancy_ = nullptr;
  std::vector<uint8_t> eligible_;
  std::vector<uint8_t> degraded_;  // per host, only when some host is degraded
  std::vector<int> block_free_, pod_free_, block_free_gpus_, block_total_gpus_;
  std::vector<int> nvlink_free_, nvlink_free_gpus_, nvlink_total_gpus_;
  int total_free_ = 0, excluded_ = 0, unhealthy_ = 0, busy_ = 0;
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_FRAMEWORK_INVENTORY_H_
