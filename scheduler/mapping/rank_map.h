// Rank -> (host, GPU, NIC). A plan lists one host per node slot in rank order; node k runs
// ranks [k*g, (k+1)*g) on the host's first g free GPUs, and each GPU talks through the NIC
// under its PCIe switch (GPUDirect RDMA), which lands on its rail.
//
// In local index order, except where a node holds several TP groups (tp < g): there the
// DP ring's hop from one node to the next would join the last TP group of one node to the
// first of the next, GPUs on different rails. Every other node of a pipeline stage takes
// its TP groups in reverse order (a boustrophedon), so each hop between nodes joins GPUs
// of one index, on one rail; pipeline peers hold the same position in their stages, so
// they keep one rail too. Applied where the shape allows it: TP-first rank order, no CP or
// EP, and a stage of at least two whole nodes (SnakeStageNodes).
#ifndef TOPOPLACE_SCHEDULER_MAPPING_RANK_MAP_H_
#define TOPOPLACE_SCHEDULER_MAPPING_RANK_MAP_H_

#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/state/occupancy.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

struct RankSlot {
  HostId host = -1;
  GpuId gpu = -1;
  NicId nic = -1;  // -1 if the host has no NIC at all
};

// The NIC `gpu` (on `host`) talks through: its declared affine NIC, else the host NIC whose
// index is the GPU's local index modulo the NIC count (the rail-optimised cabling
// convention); -1 if the host has no NIC at all.
NicId GpuNic(const Fabric& fabric, const Host& host, GpuId gpu);

// Nodes per pipeline stage when MapRanks reverses every other node's TP groups, else 0.
int SnakeStageNodes(const JobSpec& job);

// Maps every rank of `job` onto `node_hosts` (one host per node, rank order).
// InvalidArgument if a node's host is not one of the fabric's; FailedPrecondition if a host
// has fewer than gpus_per_node free GPUs in `occupancy`.
// Each GPU's NIC is GpuNic.
absl::StatusOr<std::vector<RankSlot>> MapRanks(const Fabric& fabric, const JobSpec& job,
                                               std::span<const HostId> node_hosts,
                                               const Occupancy& occupancy);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_MAPPING_RANK_MAP_H_
