// Hosts whose free GPUs sit on the same rails, for a job whose nodes take part of a host.
// A node runs on its host's first gpus_per_node free GPUs (MapRanks), so on two partly
// used hosts rank i of one node and rank i of the next can sit on different local indices,
// hence different rails: their DP traffic then crosses rails (counted as cross_rail_bytes)
// and, with PXN, leaves through a NIC another job's GPU uses. Taking nodes from hosts whose
// first free GPUs have the same local indices keeps every such pair on one rail.
//
//   if (std::optional<std::vector<HostId>> hosts = RailMatchedHosts(inv, job, block, n))
//     candidates.push_back({*std::move(hosts), "rail-matched ..."});
//
// Pure function of its input; thread-safe.
#ifndef TOPOPLACE_SCHEDULER_POLICIES_RAIL_MATCHING_H_
#define TOPOPLACE_SCHEDULER_POLICIES_RAIL_MATCHING_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "scheduler/framework/inventory.h"
#include "scheduler/job/job_spec.h"

namespace topoplace::sched {

// The first `count` eligible hosts of `block`, in host order, among those whose first
// job.gpus_per_node free GPUs have the same local indices: the index set that is the
// first in host order to have `count` hosts. nullopt when no index set has `count` hosts,
// when the block's first `count` eligible hosts already share one (the plain best fit is
// rail-matched), or when a host has more than 64 GPUs. Precondition: count > 0.
std::optional<std::vector<HostId>> RailMatchedHosts(const Inventory& inv, const JobSpec& job,
                                                    int32_t block, int count);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_POLICIES_RAIL_MATCHING_H_
