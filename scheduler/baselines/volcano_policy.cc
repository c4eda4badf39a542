// Volcano's network-topology-aware scheduling with the binpack plugin, as its code does it
// at volcano-sh/volcano@ed72c7c8 (v1.16.0-alpha.1+42, pkg/scheduler/actions/allocate and
// plugins/network-topology-aware) and as its own allocate tests check it
// (tests/fixtures/peers/volcano): the job goes to the lowest tier with a HyperNode that
// can hold it whole; among that tier's HyperNodes the most allocated after placing it
// (here: fewest free nodes); inside it, nodes by binpack score (most allocated first),
// where Volcano breaks equal scores at random and we take node order. Tier 1 = block,
// tier 2 = pod, the virtual root = cluster. Hard mode (highestTierAllowed) is the job's
// hard max_tier: the engine refuses a plan above it, as Volcano leaves the job pending;
// soft mode Volcano turns into hard mode bounded by its virtual root (session.go), which is
// this same search. Ranks follow node order. Left out: sub-group policies, a job's
// already allocated HyperNode, other scoring plugins' weights, gang-level preemption.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "scheduler/baselines/baseline_policies.h"
#include "scheduler/framework/domain_select.h"

namespace topoplace::sched {
namespace {

class VolcanoPolicy final : public PlacementPolicy {
 public:
  absl::string_view name() const override { return kVolcanoPolicyName; }
  absl::StatusOr<std::vector<Candidate>> Propose(const PlacementContext& ctx) const override {
    for (DomainLevel level : {DomainLevel::kBlock, DomainLevel::kPod, DomainLevel::kCluster}) {
      std::vector<Domain> fits = FittingDomains(ctx.inventory, level, ctx.nodes);
      if (fits.empty()) continue;
      std::vector<HostId> hosts;
      for (int32_t b : BlocksOf(ctx.fabric, fits.front())) {
        for (HostId h : ctx.fabric.blocks()[b].hosts) {
          if (ctx.inventory.eligible(h)) hosts.push_back(h);
        }
      }
      // Binpack: fewer free GPUs = more allocated = preferred; stable keeps node order.
      const Occupancy& occ = ctx.inventory.occupancy();
      std::stable_sort(hosts.begin(), hosts.end(),
                       [&](HostId a, HostId b) { return occ.free_gpus(a) < occ.free_gpus(b); });
      hosts.resize(ctx.nodes);
      std::sort(hosts.begin(), hosts.end());
      return std::vector<Candidate>{
          {std::move(hosts), absl::StrCat("lowest-tier HyperNode that fits, binpack")}};
    }
    return absl::ResourceExhaustedError("volcano: no HyperNode has enough free nodes");
  }
};

}  // namespace

PlacementPolicyPtr MakeVolcanoPolicy() { return std::make_unique<VolcanoPolicy>(); }

}  // namespace topoplace::sched
