// Building blocks shared by the topology-aware policy and the baselines: the domain
// levels (block, pod, cluster), which domains of a level can hold a job, and the
// "fewest domains, last one best-fit" choice that Slurm's tree plugin, Kueue's BestFit and
// our own packing all use in some form.
#ifndef TOPOPLACE_SCHEDULER_FRAMEWORK_DOMAIN_SELECT_H_
#define TOPOPLACE_SCHEDULER_FRAMEWORK_DOMAIN_SELECT_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "scheduler/framework/inventory.h"
#include "scheduler/job/job_spec.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

enum class DomainLevel : uint8_t { kBlock = 0, kPod = 1, kCluster = 2 };

// A block, a pod or the whole cluster, with its eligible free hosts.
struct Domain {
  DomainLevel level = DomainLevel::kCluster;
  int32_t id = 0;  // block or pod index; 0 for the cluster
  int free = 0;
};

// How a placement's description names `d`: "block 3", "pod 1" or "the cluster".
std::string DomainName(const Domain& d);

// The largest level a job may use under `tier` on `fabric` (leaf and block both mean one
// block). A pod tier on a fabric with at most one pod is the whole cluster: that pod holds
// every block, and FittingDomains lists no pods on such a fabric.
DomainLevel MaxLevelFor(MaxTier tier, const Fabric& fabric);

// Domains of `level` with at least `nodes` eligible hosts, fewest free first (best fit),
// ties by id. The pod level is empty on fabrics with a single pod (it equals the cluster).
std::vector<Domain> FittingDomains(const Inventory& inv, DomainLevel level, int nodes);

// The blocks inside `domain`, in id order.
std::vector<int32_t> BlocksOf(const Fabric& fabric, const Domain& domain);

// Amount taken from one domain.
struct Take {
  int32_t index = 0;  // position in the capacity array
  int amount = 0;
};
// The takes of one choice: a few (a job spans a few dozen domains at most, and the search
// makes dozens of choices per placement), kept inline up to 32 (a pod of clos3-100k has
// 25 blocks).
using Takes = absl::InlinedVector<Take, 32>;

// Chooses as few domains as possible to cover `need`: largest capacity first, and for the
// last one the smallest domain that still covers the remainder (best fit). Ties go to the
// lower index. Returns the takes in selection order, or empty if the total is short.
Takes GreedyBestFit(std::span<const int> capacity, int need);

// Takes `count` hosts from `blocks` following `takes` (amounts in hosts) into `out`.
// Precondition: the amounts fit the inventory.
void TakeFromBlocks(const Inventory& inv, std::span<const int32_t> blocks,
                    std::span<const Take> takes, std::vector<HostId>& out);

// The same, one level further down where the inventory has NVLink domains spanning hosts
// (Inventory::nvlink_level): inside each block, hosts from the fewest domains (GreedyBestFit
// over their eligible hosts), domain by domain. Elsewhere exactly TakeFromBlocks.
void TakeFromBlocksByDomain(const Inventory& inv, std::span<const int32_t> blocks,
                            std::span<const Take> takes, std::vector<HostId>& out);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_FRAMEWORK_DOMAIN_SELECT_H_
