// Slurm's topology/tree node selection, as Slurm 22.05 (Debian 12's 22.05.8) implements it
// in select/cons_tres: _eval_nodes_topo() with _topo_choose_best_switch() and
// _topo_compare_switches() in src/plugins/select/cons_tres/job_test.c, and the switch
// distances of src/plugins/topology/tree/topology_tree.c. Read from the slurm-22-05-8-1 tag.
//
// The switch table is what `topoplace export slurm-tree` writes, in its order: one leaf
// per block (level 0), the pods above them (level 1), and a root over the pods when a core
// tier joins them (level 2). Modelled for what the simulator submits: whole-node exclusive
// jobs, every node of equal weight, no required nodes, no --switches. Under those:
//  1. The top switch is the highest-level switch with enough free nodes (ties: the last in
//     table order); only nodes under it count.
//  2. Leaves are added one at a time. A leaf at a smaller total distance (tree hops) from
//     the leaves already chosen wins if it compares no worse; at equal distance, one that
//     compares better. Comparing two leaves: if both can hold the rest, the smaller one
//     (tightest fit); if one can, that one; if neither, their parents are compared the same
//     way while the parents differ; failing that, the larger, then the lower level. Ties
//     keep the earlier leaf in table order. Slurm never decrements the parents' counts as
//     nodes are taken, and a root's parent is switch 0 (zeroed memory); both are kept.
//  3. From the chosen leaf, free nodes are taken in node order until the job has enough.
// Left out: node weights, required nodes, GRES/CPU counts per node, --switches waiting.
// The current release (master, src/plugins/topology/tree/eval_nodes_tree.c) differs: a
// closer leaf wins only if it can hold the rest of the job (not merely "compares no
// worse"), and switch CPU counts join the fit test. This policy models 22.05, the version
// the real-peer test can run.
#include <algorithm>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/baselines/baseline_policies.h"
#include "scheduler/framework/domain_select.h"

namespace topoplace::sched {
namespace {

constexpr int64_t kInfinite = std::numeric_limits<int64_t>::max() / 4;

// Slurm's switch_record_table for one fabric, with live node counts.
struct SwitchTable {
  std::vector<int> level;
  std::vector<int> parent;
  std::vector<int> count;   // free nodes under the switch (switch_node_cnt)
  std::vector<int> pod_of;  // leaves: their pod; -1 for pods and the root
  int leaves = 0;
  bool has_root = false;
};

SwitchTable BuildTable(const Fabric& fabric, const Inventory& inv) {
  SwitchTable t;
  const int blocks = static_cast<int>(fabric.blocks().size());
  const int pods = static_cast<int>(fabric.pods().size());
  t.leaves = blocks;
  t.has_root = pods > 1 && fabric.max_tier() >= 3;
  const int n = blocks + pods + (t.has_root ? 1 : 0);
  t.level.assign(n, 0);
  t.parent.assign(n, 0);  // xcalloc'd: a switch nobody lists as a child has parent 0
  t.count.assign(n, 0);
  t.pod_of.assign(n, -1);
  for (int b = 0; b < blocks; ++b) {
    const int pod = fabric.blocks()[b].pod;
    t.pod_of[b] = pod;
    t.parent[b] = blocks + pod;
    t.count[b] = inv.block_free(b);
    t.count[blocks + pod] += t.count[b];
  }
  for (int p = 0; p < pods; ++p) {
    t.level[blocks + p] = 1;
    if (t.has_root) {
      t.parent[blocks + p] = n - 1;
      t.count[n - 1] += t.count[blocks + p];
    }
  }
  if (t.has_root) t.level[n - 1] = 2;
  return t;
}

// Tree hops between two leaves (topology_tree.c's switches_dist), or kInfinite.
int64_t LeafDistance(const SwitchTable& t, int a, int b) {
  if (a == b) return 0;
  if (t.pod_of[a] == t.pod_of[b]) return 2;
  return t.has_root ? 4 : kInfinite;
}

// _topo_compare_switches: > 0 if leaf i is the better choice, < 0 if j is.
int Compare(const SwitchTable& t, int i, int j, int rem) {
  while (true) {
    const bool i_fit = t.count[i] >= rem, j_fit = t.count[j] >= rem;
    if (i_fit && j_fit) {
      if (t.count[i] < t.count[j]) return 1;
      if (t.count[i] > t.count[j]) return -1;
      break;
    }
    if (i_fit) return 1;
    if (j_fit) return -1;
    if ((t.parent[i] != i || t.parent[j] != j) && t.parent[i] != t.parent[j]) {
      i = t.parent[i];
      j = t.parent[j];
      continue;
    }
    break;
  }
  if (t.count[i] > t.count[j]) return 1;
  if (t.count[i] < t.count[j]) return -1;
  if (t.level[i] < t.level[j]) return 1;
  if (t.level[i] > t.level[j]) return -1;
  return 0;
}

class SlurmTreePolicy final : public PlacementPolicy {
 public:
  absl::string_view name() const override { return kSlurmTreePolicyName; }

  absl::StatusOr<std::vector<Candidate>> Propose(const PlacementContext& ctx) const override {
    SwitchTable t = BuildTable(ctx.fabric, ctx.inventory);
    const int n = static_cast<int>(t.level.size());
    // 1. The top switch: highest level with enough nodes, the last such in table order.
    int top = -1;
    for (int s = 0; s < n; ++s) {
      if (t.count[s] >= ctx.nodes && (top == -1 || t.level[s] >= t.level[top])) top = s;
    }
    if (top == -1)
      return absl::ResourceExhaustedError("slurm-tree: no switch has enough free nodes");
    // Only leaves under the top switch keep their nodes.
    for (int leaf = 0; leaf < t.leaves; ++leaf) {
      const bool under = top == leaf || t.level[top] == 2 || t.pod_of[leaf] == top - t.leaves;
      if (!under) t.count[leaf] = 0;
    }
    // 2-3. Leaves one at a time, closest first.
    std::vector<int64_t> dist(t.leaves, 0);
    std::vector<uint8_t> taken(ctx.fabric.hosts().size(), 0);
    Candidate c;
    int rem = ctx.nodes, leaves_used = 0;
    while (rem > 0) {
      int best = -1;
      for (int i = 0; i < t.leaves; ++i) {
        if (best == -1 || dist[i] >= kInfinite || t.count[i] == 0) {
          if (t.count[i] > 0 && dist[i] < kInfinite && best == -1) best = i;
          continue;
        }
        const int tcs = Compare(t, i, best, rem);
        if ((dist[i] < dist[best] && tcs >= 0) || (dist[i] == dist[best] && tcs > 0)) best = i;
      }
      if (best == -1) break;  // stalled
      for (int i = 0; i < t.leaves; ++i) {
        const int64_t d = LeafDistance(t, best, i);
        dist[i] = (d >= kInfinite || dist[i] >= kInfinite) ? kInfinite : dist[i] + d;
      }
      rem -= ctx.inventory.TakeHosts(best, rem, taken, c.node_hosts);
      t.count[best] = 0;
      ++leaves_used;
    }
    if (rem > 0)
      return absl::ResourceExhaustedError("slurm-tree: not enough nodes under the top switch");
    // Slurm hands out task ranks in node order.
    std::sort(c.node_hosts.begin(), c.node_hosts.end());
    c.how = absl::StrCat("Slurm 22.05 tree selection, ", leaves_used, " leaf switch(es)");
    return std::vector<Candidate>{std::move(c)};
  }
};

}  // namespace

PlacementPolicyPtr MakeSlurmTreePolicy() { return std::make_unique<SlurmTreePolicy>(); }

}  // namespace topoplace::sched
