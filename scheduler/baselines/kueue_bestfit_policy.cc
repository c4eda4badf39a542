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
// Ranks follow the assignment as Kueue lists it, sorted by level values.
// Pod-set slices: the job spec's segment=S is Kueue's podSetSliceSize S with
// podSetSliceRequiredTopology at the block level (as Slurm's segments, each inside one
// block). Then capacity at the block level and above is counted in whole slices (a block's
// free hosts / S, summed upwards), domains are ordered most slices first, then fewest free
// nodes, then name, and choosing happens in slices down to the blocks; below each chosen
// block its own pods go to its children, in the same order (where a level below holds no
// slices: fewest free nodes first), the last one the tightest fit. A segment of 0 or larger
// than the job is no slice, as Slurm ignores it.
// Left out: leader/worker pod sets, slices at other levels, balanced placement (an alpha
// gate, off by default), node replacement.
#include <algorithm>
#include <span>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/baselines/baseline_policies.h"
#include "scheduler/framework/level_tree.h"

namespace topoplace::sched {
namespace {

// A domain of one level and what it was given (slices or nodes, as counted there).
struct Share {
  int32_t id = 0;
  int count = 0;
};

// What Kueue counts per domain: free nodes, and whole slices at the slice level and above.
// Without slices the slice level is the host's and a slice is one node, so both are the
// free nodes.
class Capacity {
 public:
  Capacity(const LevelTree& tree, Level slice_level, int slice_size)
      : tree_(tree), slice_level_(slice_level), slice_size_(slice_size) {}

  const LevelTree& tree() const { return tree_; }
  Level slice_level() const { return slice_level_; }
  int slice_size() const { return slice_size_; }
  int Free(Level level, int32_t id) const { return tree_.Free(level, id); }
  // Whole slices the domain holds; 0 below the slice level.
  int Slices(Level level, int32_t id) const {
    if (slice_level_ == Level::kHost) return tree_.Free(level, id);  // no slices: nodes
    if (level == slice_level_) return tree_.Free(level, id) / slice_size_;
    if (!AtOrAboveSliceLevel(level)) return 0;
    int slices = 0;
    for (int32_t child : tree_.Children(level, id)) slices += Slices(tree_.Below(level), child);
    return slices;
  }
  bool AtOrAboveSliceLevel(Level level) const {
    return static_cast<int>(level) <= static_cast<int>(slice_level_);
  }

 private:
  const LevelTree& tree_;
  Level slice_level_;
  int slice_size_;
};

// Kueue's BestFit order: most slices first, then the fewest free nodes, then by name.
void SortMostFree(const Capacity& cap, Level level, std::vector<int32_t>& ids) {
  std::vector<std::tuple<int, int, int32_t>> keyed;
  keyed.reserve(ids.size());
  for (int32_t id : ids) keyed.emplace_back(cap.Slices(level, id), cap.Free(level, id), id);
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
    if (std::get<0>(x) != std::get<0>(y)) return std::get<0>(x) > std::get<0>(y);
    if (std::get<1>(x) != std::get<1>(y)) return std::get<1>(x) < std::get<1>(y);
    return cap.tree().NameBefore(level, std::get<2>(x), std::get<2>(y));
  });
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = std::get<2>(keyed[i]);
}

// Fills `need` (in the unit `count` gives) from `pool` in its order: each domain whole,
// until one covers what is left; that last one is the tightest of the rest that covers it
// (the first such in pool order on ties). Empty if the pool is short.
template <typename Count>
std::vector<Share> FillMostFreeFirst(std::span<const int32_t> pool, int need, Count count) {
  std::vector<Share> out;
  for (size_t i = 0; i < pool.size() && need > 0; ++i) {
    const int free = count(pool[i]);
    if (free < need) {
      if (free > 0) out.push_back({pool[i], free});
      need -= free;
      continue;
    }
    size_t best = i;
    for (size_t j = i + 1; j < pool.size(); ++j) {
      const int f = count(pool[j]);
      if (f >= need && f < count(pool[best])) best = j;
    }
    out.push_back({pool[best], need});
    need = 0;
  }
  if (need > 0) out.clear();
  return out;
}

// Below the slice level: each chosen domain's own nodes go to its children, level by level.
std::vector<Share> DescendEachOnItsOwn(const Capacity& cap, Level level,
                                       std::vector<Share> chosen) {
  while (level != Level::kHost) {
    const Level below = cap.tree().Below(level);
    std::vector<Share> next;
    for (const Share& s : chosen) {
      std::vector<int32_t> children = cap.tree().Children(level, s.id);
      SortMostFree(cap, below, children);
      for (const Share& c :
           FillMostFreeFirst(children, s.count, [&](int32_t id) { return cap.Free(below, id); })) {
        next.push_back(c);
      }
    }
    chosen = std::move(next);
    level = below;
  }
  return chosen;
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
    const bool sliced = ctx.job.segment > 0 && ctx.job.segment <= n;
    const Capacity cap(tree, sliced ? Level::kBlock : Level::kHost, sliced ? ctx.job.segment : 1);
    if (sliced && !cap.AtOrAboveSliceLevel(level)) {
      return absl::ResourceExhaustedError(
          absl::StrCat("kueue-bestfit: podset slice topology block is above the podset topology ",
                       LevelName(level)));
    }
    const int slices = n / cap.slice_size();
    const auto slices_of = [&cap](Level l) {
      return [&cap, l](int32_t id) { return cap.Slices(l, id); };
    };
    // Find the level and domains (FindLevelWithFitDomains), in slices.
    std::vector<Share> chosen;
    for (;;) {
      std::vector<int32_t> domains = tree.All(level);
      SortMostFree(cap, level, domains);
      const int most = domains.empty() ? 0 : cap.Slices(level, domains.front());
      if (most >= slices) {
        chosen = FillMostFreeFirst(domains, slices, slices_of(level));  // the tightest one
        break;
      }
      if (required) {
        return absl::ResourceExhaustedError(
            absl::StrCat("kueue-bestfit: a required ", LevelName(level), " allows to fit only ",
                         most * cap.slice_size(), " out of ", n, " nodes",
                         sliced ? absl::StrCat(" in slices of ", cap.slice_size()) : ""));
      }
      if (level != Level::kPod) {
        level = tree.Above(level);
        continue;
      }
      chosen = FillMostFreeFirst(domains, slices, slices_of(level));
      if (chosen.empty()) {
        return absl::ResourceExhaustedError("kueue-bestfit: the cluster has too few free nodes");
      }
      break;
    }
    c.how =
        absl::StrCat("Kueue TAS BestFit: ", chosen.size(), " ", LevelName(level),
                     chosen.size() == 1 ? "" : "s", required ? " (required)" : "",
                     sliced ? absl::StrCat(", slices of ", cap.slice_size(), " per block") : "");
    // Descend to the slice level: the children of every chosen domain pooled.
    while (level != cap.slice_level()) {
      std::vector<int32_t> pool;
      for (const Share& s : chosen) {
        for (int32_t child : tree.Children(level, s.id)) pool.push_back(child);
      }
      level = tree.Below(level);
      SortMostFree(cap, level, pool);
      chosen = FillMostFreeFirst(pool, slices, slices_of(level));
    }
    for (Share& s : chosen) s.count *= cap.slice_size();  // slices -> nodes
    for (const Share& s : DescendEachOnItsOwn(cap, level, std::move(chosen))) {
      c.node_hosts.push_back(s.id);
    }
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
