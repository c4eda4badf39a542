// NVIDIA's KAI Scheduler with its topology plugin, as its code does it at
// kai-scheduler/KAI-Scheduler@d5bc503a (v0.17.0+9, pkg/scheduler/plugins/topology and
// actions/common/allocate.go) and as its own test cases check it (tests/fixtures/peers/kai,
// with the cases it cannot express), under the default configuration (GPU binpack):
// - a job asks for a required level, a preferred level, or both; domains are tried from the
//   preferred level (else the required one) upward, up to the required level (else the
//   whole cluster); the first level with a domain holding the job wins;
// - domains of a level are ordered most packed first (fewest free GPUs), a domain first
//   taking its parent's place in that order, ties by id; the job goes to the first one;
// - inside it, hosts by the topology score of their preferred-level domain, which is
//   highest for the domain ordered last (the least packed), then by GPU binpack (fewest
//   free GPUs first), then by name;
// - a required level no domain of which holds the job leaves it pending.
// A job's max_tier is its request as for kueue-bestfit: hard = required, soft = preferred
// (block, pod, or the NVLink domain for nvlink); cluster = preferred at the lowest level (what a
// user asking for locality without a bound writes); cluster with mode=soft = no topology
// constraint. Levels: pod > block > NVLink domain (where domains span hosts), the levels of our
// kai-topology export. Left out: sub-groups with their own constraints, elastic pod sets, reclaim
// and consolidation.
#include <algorithm>
#include <optional>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/baselines/baseline_policies.h"
#include "scheduler/framework/level_tree.h"

namespace topoplace::sched {
namespace {

// The place of every domain of `level` in KAI's order: most packed first, inheriting the
// parent's place. Returns the ids in that order.
std::vector<int32_t> PackedOrder(const LevelTree& tree, Level level) {
  // Key: (free GPUs, id) of each ancestor from the pod level down, then of the domain.
  using Key = std::vector<std::pair<int, int32_t>>;
  std::vector<std::pair<Key, int32_t>> keyed;
  for (int32_t id : tree.All(level)) {
    Key key;
    Level l = level;
    int32_t d = id;
    for (;;) {
      key.emplace_back(tree.FreeGpus(l, d), d);
      if (l == Level::kPod) break;
      d = tree.Parent(l, d);
      l = tree.Above(l);
    }
    std::reverse(key.begin(), key.end());
    keyed.emplace_back(std::move(key), id);
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<int32_t> ids;
  ids.reserve(keyed.size());
  for (auto& [key, id] : keyed) ids.push_back(id);
  return ids;
}

// The domain of `level` holding host `h`.
int32_t DomainOf(const LevelTree& tree, Level level, HostId h) {
  Level l = Level::kHost;
  int32_t d = h;
  while (l != level) {
    d = tree.Parent(l, d);
    l = tree.Above(l);
  }
  return d;
}

void CollectHosts(const LevelTree& tree, Level level, int32_t id, std::vector<HostId>& out) {
  if (level == Level::kHost) {
    if (tree.Free(level, id) > 0) out.push_back(id);
    return;
  }
  for (int32_t child : tree.Children(level, id)) CollectHosts(tree, tree.Below(level), child, out);
}

class KaiPolicy final : public PlacementPolicy {
 public:
  absl::string_view name() const override { return kKaiPolicyName; }

  absl::StatusOr<std::vector<Candidate>> Propose(const PlacementContext& ctx) const override {
    const LevelTree tree(ctx.inventory);
    const int n = ctx.nodes;
    std::optional<Level> required, preferred;
    if (ctx.job.max_tier != MaxTier::kCluster) {
      const Level l = tree.RequestedLevel(ctx.job.max_tier);
      (ctx.job.mode == ConstraintMode::kHard ? required : preferred) = l;
    } else if (ctx.job.mode == ConstraintMode::kHard) {
      preferred = tree.lowest_domain_level();
    }
    Candidate c;
    std::vector<HostId> hosts;
    if (required || preferred) {
      const Level top = required.value_or(Level::kPod);
      bool found = false;
      for (Level level = preferred.value_or(*required);; level = tree.Above(level)) {
        for (int32_t d : PackedOrder(tree, level)) {
          if (tree.Free(level, d) < n) continue;
          CollectHosts(tree, level, d, hosts);
          c.how = absl::StrCat("KAI: the most packed ", LevelName(level), " holding the job");
          found = true;
          break;
        }
        if (found || level == top) break;
      }
      if (!found && required) {
        return absl::ResourceExhaustedError(
            absl::StrCat("kai: requirement ", LevelName(*required), " couldn't be satisfied: no ",
                         LevelName(*required), " can allocate ", n, " nodes"));
      }
      if (!found) c.how = "KAI: the whole cluster (no preferred domain holds the job)";
      if (!found) CollectAll(tree, hosts);
    } else {
      c.how = "KAI: no topology constraint, GPU binpack";
      CollectAll(tree, hosts);
    }
    // Topology score of each host's preferred-level domain: 10 buckets over KAI's order,
    // the last (least packed) domain scoring highest.
    std::vector<int> score(hosts.size(), 0);
    if (preferred) {
      const std::vector<int32_t> order = PackedOrder(tree, *preferred);
      std::vector<int> bucket(order.size());
      for (size_t i = 0; i < order.size(); ++i) {
        bucket[order[i]] = static_cast<int>(10 * (i + 1) / order.size());
      }
      for (size_t i = 0; i < hosts.size(); ++i) {
        score[i] = bucket[DomainOf(tree, *preferred, hosts[i])];
      }
    }
    std::vector<size_t> idx(hosts.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
      if (score[a] != score[b]) return score[a] > score[b];
      const int fa = tree.FreeGpus(Level::kHost, hosts[a]);
      const int fb = tree.FreeGpus(Level::kHost, hosts[b]);
      if (fa != fb) return fa < fb;
      return tree.NameBefore(Level::kHost, hosts[a], hosts[b]);
    });
    for (size_t i = 0; i < idx.size() && static_cast<int>(i) < n; ++i) {
      c.node_hosts.push_back(hosts[idx[i]]);
    }
    return std::vector<Candidate>{std::move(c)};
  }

 private:
  static void CollectAll(const LevelTree& tree, std::vector<HostId>& hosts) {
    for (int32_t h : tree.All(Level::kHost)) {
      if (tree.Free(Level::kHost, h) > 0) hosts.push_back(h);
    }
  }
};

}  // namespace

PlacementPolicyPtr MakeKaiPolicy() { return std::make_unique<KaiPolicy>(); }

}  // namespace topoplace::sched
