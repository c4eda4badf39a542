// Volcano network-topology-aware scheduling, as documented in
// https://volcano.sh/en/docs/network_topology_aware_scheduling/ (HyperNode tiers,
// highestTierAllowed) with the binpack plugin (https://volcano.sh/en/docs/plugins/):
// the job is scheduled into the lowest-tier HyperNode that can hold it whole; among
// HyperNodes of that tier the binpack score prefers the most utilised one (fewest free
// nodes); inside it, nodes are ordered by binpack score (most allocated first), ties in
// node order. Tier 1 = block, tier 2 = pod, top = cluster. Ranks follow node order.
// Version: the documentation of Volcano v1.11-v1.12 (HyperNode API v1alpha1). No real peer
// here: Debian ships no Volcano, so it is not checked against its code. Left out: soft
// mode, other scoring plugins' weights, and gang-level preemption.
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
