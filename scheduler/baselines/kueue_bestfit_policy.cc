// Kueue's Topology Aware Scheduling with its default placement profile, as the code of
// kubernetes-sigs/kueue@ff69552e (main after v0.19.2, pkg/cache/scheduler/
// tas_flavor_snapshot.go) does it for one pod set without slices, and as its own test
// cases check it (tests/fixtures/peers/kueue, with the cases it cannot express):
// - capacity is counted in pods (here: nodes of the job, one per eligible host), summed up
//   the levels pod > block > NVLink domain (where domains span hosts) > host, the levels
//   our Kueue Topology export lists;
// - required level L: among L's domains the one with the least capacity that fits (ties:
//   the first in name order), or the job does not fit; preferred level L: the same, and
//   when no domain of L fits, the level above, up to the top level, where the job is split
//   over the domains with the most capacity, the last one the tightest that covers the
//   rest; unconstrained: hosts with the least free capacity first, by name, no topology;
// - below the chosen domains, level by level, their children pooled together, most
//   capacity first, the last one the tightest fit; ties by name (hosts by host name, other
//   domains by id, which is the order of their exported names block-00, block-01...).
// A job's max_tier is its request: hard leaf/block = required block, hard pod = required
// pod, hard nvlink = required NVLink domain (the host where hosts are their own), soft =
// preferred; cluster (no bound) = preferred at the lowest level, what a Kueue
// user asking for locality without a bound writes; cluster with mode=soft = unconstrained.
// Ranks follow the assignment as Kueue lists it, sorted by level values. Left out: slices,
// leader/worker pod sets, balanced placement (an alpha gate, off by default), node
// replacement.
#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/baselines/baseline_policies.h"
#include "scheduler/framework/level_tree.h"

namespace topoplace::sched {
namespace {

// A domain of one level and the nodes it was given.
struct Share {
  int32_t id = 0;
  int count = 0;
};

// Most free first, then by name (Kueue's BestFit order).
void SortMostFree(const LevelTree& tree, Level level, std::vector<int32_t>& ids) {
  std::vector<std::pair<int, int32_t>> keyed;
  keyed.reserve(ids.size());
  for (int32_t id : ids) keyed.emplace_back(tree.Free(level, id), id);
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
    if (x.first != y.first) return x.first > y.first;
    return tree.NameBefore(level, x.second, y.second);
  });
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = keyed[i].second;
}

// Fills `need` from `pool` (sorted most free first): each domain whole, until one covers
// what is left; that last one is the tightest of the rest that covers it (the first such
// in pool order on ties). Empty if the pool is short.
std::vector<Share> FillMostFreeFirst(const LevelTree& tree, Level level,
                                     std::span<const int32_t> pool, int need) {
  std::vector<Share> out;
  for (size_t i = 0; i < pool.size() && need > 0; ++i) {
    const int free = tree.Free(level, pool[i]);
    if (free < need) {
      if (free > 0) out.push_back({pool[i], free});
      need -= free;
      continue;
    }
    size_t best = i;
    for (size_t j = i + 1; j < pool.size(); ++j) {
      const int f = tree.Free(level, pool[j]);
      if (f >= need && f < tree.Free(level, pool[best])) best = j;
    }
    out.push_back({pool[best], need});
    need = 0;
  }
  if (need > 0) out.clear();
  return out;
}

class KueueBestFitPolicy final : public PlacementPolicy {
 public:
  absl::string_view name() const override { return kKueueBestFitPolicyName; }

  absl::StatusOr<std::vector<Candidate>> Propose(const PlacementContext& ctx) const override {
    const LevelTree tree(ctx.inventory);
    const int n = ctx.nodes;
    Candidate c;
    if (ctx.job.max_tier == MaxTier::kCluster && ctx.job.mode == ConstraintMode::kSoft) {
      c.node_hosts = Unconstrained(tree, n);
      c.how = "Kueue TAS, unconstrained: least free hosts first, by name";
      return std::vector<Candidate>{std::move(c)};
    }
    Level level = tree.lowest_domain_level();
    bool required = false;
    if (ctx.job.max_tier != MaxTier::kCluster) {
      level = tree.RequestedLevel(ctx.job.max_tier);
      required = ctx.job.mode == ConstraintMode::kHard;
    }
    // Find the level and domains (FindLevelWithFitDomains).
    std::vector<Share> chosen;
    for (;;) {
      std::vector<int32_t> domains = tree.All(level);
      SortMostFree(tree, level, domains);
      const int most = domains.empty() ? 0 : tree.Free(level, domains.front());
      if (most >= n) {
        chosen = FillMostFreeFirst(tree, level, domains, n);  // one domain: the tightest
        break;
      }
      if (required) {
        return absl::ResourceExhaustedError(absl::StrCat("kueue-bestfit: a required ",
                                                         LevelName(level), " allows to fit only ",
                                                         most, " out of ", n, " nodes"));
      }
      if (level != Level::kPod) {
        level = tree.Above(level);
        continue;
      }
      chosen = FillMostFreeFirst(tree, level, domains, n);
      if (chosen.empty()) {
        return absl::ResourceExhaustedError("kueue-bestfit: the cluster has too few free nodes");
      }
      break;
    }
    c.how = absl::StrCat("Kueue TAS BestFit: ", chosen.size(), " ", LevelName(level),
                         chosen.size() == 1 ? "" : "s", required ? " (required)" : "");
    // Descend: the children of every chosen domain pooled, most free first.
    while (level != Level::kHost) {
      std::vector<int32_t> pool;
      for (const Share& s : chosen) {
        for (int32_t child : tree.Children(level, s.id)) pool.push_back(child);
      }
      level = tree.Below(level);
      SortMostFree(tree, level, pool);
      chosen = FillMostFreeFirst(tree, level, pool, n);
    }
    for (const Share& s : chosen) c.node_hosts.push_back(s.id);
    std::sort(c.node_hosts.begin(), c.node_hosts.end(),
              [&](HostId a, HostId b) { return tree.ListedBefore(a, b); });
    return std::vector<Candidate>{std::move(c)};
  }

 private:
  static std::vector<HostId> Unconstrained(const LevelTree& tree, int n) {
    std::vector<int32_t> hosts;
    for (int32_t h : tree.All(Level::kHost)) {
      if (tree.Free(Level::kHost, h) > 0) hosts.push_back(h);
    }
    std::sort(hosts.begin(), hosts.end(),
              [&](int32_t a, int32_t b) { return tree.NameBefore(Level::kHost, a, b); });
    hosts.resize(std::min<size_t>(hosts.size(), n));
    return hosts;
  }
};

}  // namespace

PlacementPolicyPtr MakeKueueBestFitPolicy() { return std::make_unique<KueueBestFitPolicy>(); }

}  // namespace topoplace::sched
