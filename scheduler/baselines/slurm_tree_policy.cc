// Slurm topology/tree, as documented in https://slurm.schedmd.com/topology.html ("Tree
// Topology") and implemented in select/cons_tres (_eval_nodes_topo): find the lowest-level
// switch whose subtree has enough free nodes, preferring the one with the fewest free
// nodes (best fit); then pick leaf switches under it: while nodes are still needed, take
// the leaf with the fewest free nodes that can satisfy the rest, or else the leaf with the
// most free nodes. We model a block as one leaf switch (topology.conf for rail-optimised
// clusters lists the scalable unit as the leaf), a pod as a spine switch and the top as
// the root. Slurm hands out task ranks in sorted host-list order.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "scheduler/baselines/baseline_policies.h"
#include "scheduler/policies/domain_select.h"

namespace topoplace::sched {
namespace {

class SlurmTreePolicy final : public PlacementPolicy {
 public:
  absl::string_view name() const override { return kSlurmTreePolicyName; }
  absl::StatusOr<std::vector<Candidate>> Propose(const PlacementContext& ctx) const override {
    for (DomainLevel level : {DomainLevel::kBlock, DomainLevel::kPod, DomainLevel::kCluster}) {
      std::vector<Domain> fits = FittingDomains(ctx.inventory, level, ctx.nodes);
      if (fits.empty()) continue;
      const Domain& sw = fits.front();  // lowest level, fewest free nodes
      const std::vector<int32_t> leaves = BlocksOf(ctx.fabric, sw);
      std::vector<int> free(leaves.size());
      for (size_t i = 0; i < leaves.size(); ++i) free[i] = ctx.inventory.block_free(leaves[i]);
      // "best fit leaf if one suffices, else the largest" is exactly GreedyBestFit.
      const std::vector<Take> takes = GreedyBestFit(free, ctx.nodes);
      Candidate c;
      TakeFromBlocks(ctx.inventory, leaves, takes, c.node_hosts);
      std::sort(c.node_hosts.begin(), c.node_hosts.end());
      c.how = absl::StrCat("lowest switch that fits, ", takes.size(), " leaf switch(es)");
      return std::vector<Candidate>{std::move(c)};
    }
    return absl::ResourceExhaustedError("slurm-tree: no switch has enough free nodes");
  }
};

}  // namespace

PlacementPolicyPtr MakeSlurmTreePolicy() { return std::make_unique<SlurmTreePolicy>(); }

}  // namespace topoplace::sched
