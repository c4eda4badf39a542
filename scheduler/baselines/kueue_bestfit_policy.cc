// Kueue Topology Aware Scheduling with the BestFit algorithm, as documented in
// https://kueue.sigs.k8s.io/docs/concepts/topology_aware_scheduling/ and KEP-2724
// (kubernetes-sigs/kueue keps/2724-topology-aware-scheduling): with a preferred topology
// level, look for the lowest level at which a single domain fits the pod set, choosing
// the domain with the least free capacity that fits; otherwise go one level up. Having
// chosen a domain, descend level by level, taking child domains in decreasing order of
// free capacity and the last one best fit (the smallest that covers the remainder).
// Levels here: pod ("block" label), block ("rack" label), host; on fabrics whose NVLink
// domains span hosts also the domain between block and host, as our Kueue Topology export
// lists it (topoplace.io/nvlink-domain). Pods get ranks in the order the domains were
// chosen.
// Version: the documentation and KEP as of Kueue v0.9-v0.10 (TAS beta). No real peer here:
// Debian ships no Kueue, so it is not checked against Kueue's code. Left out: pod-set
// slices, unconstrained (required: false) mode's fallbacks, and the MostFreeCapacity
// profile.
#include "absl/strings/str_cat.h"
#include "scheduler/baselines/baseline_policies.h"
#include "scheduler/framework/domain_select.h"

namespace topoplace::sched {
namespace {

class KueueBestFitPolicy final : public PlacementPolicy {
 public:
  absl::string_view name() const override { return kKueueBestFitPolicyName; }
  absl::StatusOr<std::vector<Candidate>> Propose(const PlacementContext& ctx) const override {
    const Fabric& fabric = ctx.fabric;
    if (ctx.inventory.nvlink_level()) {
      // The lowest level: the NVLink domain with the least free capacity that fits.
      int32_t best = -1;
      for (int32_t d = 0; d < static_cast<int32_t>(fabric.nvlink_domains().size()); ++d) {
        const int free = ctx.inventory.nvlink_free(d);
        if (free >= ctx.nodes && (best < 0 || free < ctx.inventory.nvlink_free(best))) best = d;
      }
      if (best >= 0) {
        Candidate c;
        ctx.inventory.TakeFromDomain(best, ctx.nodes, c.node_hosts);
        c.how = "BestFit: one NVLink domain";
        return std::vector<Candidate>{std::move(c)};
      }
    }
    for (DomainLevel level : {DomainLevel::kBlock, DomainLevel::kPod, DomainLevel::kCluster}) {
      std::vector<Domain> fits = FittingDomains(ctx.inventory, level, ctx.nodes);
      if (fits.empty()) continue;
      const Domain& top = fits.front();
      // Children of the chosen domain: pods of the cluster (if several), else blocks.
      std::vector<std::vector<int32_t>> groups;
      if (top.level == DomainLevel::kCluster && fabric.pods().size() > 1) {
        for (const Pod& pod : fabric.pods()) groups.push_back(pod.blocks);
      } else {
        groups.push_back(BlocksOf(fabric, top));
      }
      std::vector<int> group_free(groups.size(), 0);
      for (size_t i = 0; i < groups.size(); ++i) {
        for (int32_t b : groups[i]) group_free[i] += ctx.inventory.block_free(b);
      }
      Candidate c;
      for (const Take& gt : GreedyBestFit(group_free, ctx.nodes)) {
        const std::vector<int32_t>& blocks = groups[gt.index];
        std::vector<int> free(blocks.size());
        for (size_t j = 0; j < blocks.size(); ++j) free[j] = ctx.inventory.block_free(blocks[j]);
        TakeFromBlocksByDomain(ctx.inventory, blocks, GreedyBestFit(free, gt.amount), c.node_hosts);
      }
      c.how = absl::StrCat("BestFit from the lowest level with a fitting domain");
      return std::vector<Candidate>{std::move(c)};
    }
    return absl::ResourceExhaustedError("kueue-bestfit: no domain has enough capacity");
  }
};

}  // namespace

PlacementPolicyPtr MakeKueueBestFitPolicy() { return std::make_unique<KueueBestFitPolicy>(); }

}  // namespace topoplace::sched
