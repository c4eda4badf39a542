// The levels a Kubernetes topology scheduler sees in our exports (pod > block > NVLink
// domain, where domains span hosts > host), with each domain's children, parent, eligible
// hosts and free GPUs, for baselines that walk levels the way Kueue and KAI do.
//
//   const LevelTree tree(ctx.inventory);
//   for (Level l = tree.lowest_domain_level(); ...; l = tree.Above(l)) ...
//
// Holds a reference to the inventory; cheap to build (no per-host work).
#ifndef TOPOPLACE_SCHEDULER_FRAMEWORK_LEVEL_TREE_H_
#define TOPOPLACE_SCHEDULER_FRAMEWORK_LEVEL_TREE_H_

#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"
#include "scheduler/framework/inventory.h"
#include "scheduler/job/job_spec.h"

namespace topoplace::sched {

enum class Level : uint8_t { kPod, kBlock, kNvlinkDomain, kHost };
absl::string_view LevelName(Level level);

class LevelTree {
 public:
  explicit LevelTree(const Inventory& inv);

  // The level a job's bounded max_tier asks for, as a Kubernetes user of our exports writes
  // it: pod for pod; block for block and leaf; for nvlink the NVLink-domain level, or the
  // host where every host is its own domain. Precondition: `tier` is not kCluster.
  Level RequestedLevel(MaxTier tier) const;

  Level lowest_domain_level() const { return levels_[levels_.size() - 2]; }
  // The next level down / up. Preconditions: not the host level / not the pod level.
  Level Below(Level level) const { return levels_[IndexOf(level) + 1]; }
  Level Above(Level level) const { return levels_[IndexOf(level) - 1]; }

  // Eligible hosts (nodes of the job it can take); 1 or 0 for a host.
  int Free(Level level, int32_t id) const;
  // Free GPUs on any host of the domain.
  int FreeGpus(Level level, int32_t id) const;
  // Every domain of `level`, in id order.
  std::vector<int32_t> All(Level level) const;
  std::vector<int32_t> Children(Level level, int32_t id) const;
  // The domain one level up holding `id`. Precondition: level is not the pod level.
  int32_t Parent(Level level, int32_t id) const;
  // Siblings by name: hosts by host name, other domains by id (the order of the names our
  // exports give them, block-00, block-01...).
  bool NameBefore(Level level, int32_t a, int32_t b) const;
  // By pod, block, NVLink domain, then host name: how Kubernetes schedulers list hosts of
  // an assignment sorted by level values.
  bool ListedBefore(HostId a, HostId b) const;

 private:
  size_t IndexOf(Level level) const;

  const Inventory& inv_;
  const Fabric& fabric_;
  std::vector<Level> levels_;
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_FRAMEWORK_LEVEL_TREE_H_
