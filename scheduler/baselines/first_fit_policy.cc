// first-fit: the first eligible hosts in fabric order, topology-blind; what a scheduler
// without a topology plugin does with node lists sorted by name. Models no particular
// product version; a floor for the comparison.
#include "scheduler/baselines/baseline_policies.h"

namespace topoplace::sched {
namespace {

class FirstFitPolicy final : public PlacementPolicy {
 public:
  absl::string_view name() const override { return kFirstFitPolicyName; }
  absl::StatusOr<std::vector<Candidate>> Propose(const PlacementContext& ctx) const override {
    Candidate c{{}, "first eligible hosts in fabric order"};
    c.node_hosts.reserve(ctx.nodes);
    const int num_hosts = static_cast<int>(ctx.fabric.hosts().size());
    for (HostId h = 0; h < num_hosts && static_cast<int>(c.node_hosts.size()) < ctx.nodes; ++h) {
      if (ctx.inventory.eligible(h)) c.node_hosts.push_back(h);
    }
    return std::vector<Candidate>{std::move(c)};
  }
};

}  // namespace

PlacementPolicyPtr MakeFirstFitPolicy() { return std::make_unique<FirstFitPolicy>(); }

}  // namespace topoplace::sched
