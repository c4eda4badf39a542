// random: eligible hosts drawn uniformly with the request's seed; a topology-blind
// control, modelling no product.
#include <algorithm>
#include <random>

#include "scheduler/baselines/baseline_policies.h"

namespace topoplace::sched {
namespace {

class RandomPolicy final : public PlacementPolicy {
 public:
  absl::string_view name() const override { return kRandomPolicyName; }
  absl::StatusOr<std::vector<Candidate>> Propose(const PlacementContext& ctx) const override {
    std::vector<HostId> pool;
    const int num_hosts = static_cast<int>(ctx.fabric.hosts().size());
    for (HostId h = 0; h < num_hosts; ++h) {
      if (ctx.inventory.eligible(h)) pool.push_back(h);
    }
    std::mt19937_64 rng(ctx.seed);
    std::shuffle(pool.begin(), pool.end(), rng);
    pool.resize(ctx.nodes);
    // Launchers hand ranks out in host-list order, which resource managers sort.
    std::sort(pool.begin(), pool.end());
    return std::vector<Candidate>{{std::move(pool), "uniformly random eligible hosts"}};
  }
};

}  // namespace

PlacementPolicyPtr MakeRandomPolicy() { return std::make_unique<RandomPolicy>(); }

}  // namespace topoplace::sched
