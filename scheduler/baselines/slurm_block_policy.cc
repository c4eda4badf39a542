// Slurm topology/block as its code does it in SchedMD/slurm@284c3b95 (master; its
// src/plugins/topology/block/eval_nodes_block.c is 26.05's) and as its own tests check it
// (tests/fixtures/peers/slurm: test_150_1 and test_150_3), on the block layout our
// slurm-block export writes (scheduler/state/slurm_block_fragmentation.h: the fabric's
// blocks, or NVLink racks, with every power of two as a block size):
// - the job's size alone picks the level: the base blocks it needs rounded up to a power
//   of two, then the smallest configured size at least that; larger than every size, the
//   whole cluster is one block;
// - it must fit in one aligned block of that level (with the fewest sub-blocks, the level
//   below, that can hold it); among those, the one with the fewest free nodes, ties to the
//   later block. No block fits: the job waits (Reason=No_suitable_topology_unit_found),
//   even when a larger level would hold it;
// - inside the block, base blocks one at a time: first those in a sub-block already used,
//   then those of a sub-block that holds the rest (of those, the sub-block with the fewest
//   free nodes), else of the sub-block with the most; among base blocks, one that holds
//   the rest with the fewest free nodes, else the one with the most, ties to the later;
//   nodes in node-table order;
// - tasks are numbered block by block in configuration order, node-table order inside a
//   block (26.05's default, without CR_NO_DIST_TOPO_BLOCK).
// --segment (job spec segment=N): segments placed one after another, each as a job of its
// own on the nodes the earlier ones left. Left out: node weights, --spread-segments and
// --consolidate-segments.
#include <algorithm>
#include <bit>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/baselines/baseline_policies.h"
#include "scheduler/state/slurm_block_fragmentation.h"

namespace topoplace::sched {
namespace {

int CeilDiv(int a, int b) { return (a + b - 1) / b; }

// The levels (log2 of a block size in base blocks) the layout configures.
std::vector<bool> ConfiguredLevels(const SlurmBlockLayout& layout) {
  std::vector<bool> levels;
  for (int size : layout.block_sizes) {
    const int level = std::countr_zero(static_cast<unsigned>(size));
    if (static_cast<int>(levels.size()) <= level) levels.resize(level + 1, false);
    levels[level] = true;
  }
  return levels;
}

// Picks base blocks inside the chosen block one at a time, as Slurm does.
class BaseBlockPicker {
 public:
  BaseBlockPicker(std::vector<int> free, int sub_level, bool use_sub_blocks, int max_sub)
      : free_(std::move(free)),
        used_(free_.size(), false),
        sub_level_(sub_level),
        use_sub_(use_sub_blocks),
        max_sub_(max_sub) {
    sub_free_.assign(CeilDiv(static_cast<int>(free_.size()), 1 << sub_level_), 0);
    for (size_t i = 0; i < free_.size(); ++i) sub_free_[i >> sub_level_] += free_[i];
  }

  // Base block indices in pick order until `need` nodes are covered; empty if they
  // cannot be (the sub-block limit or too few nodes). `candidates`: the block's bases.
  std::vector<int> Pick(const std::vector<int>& candidates, int need) {
    std::vector<int> picked;
    while (need > 0) {
      int best = -1;
      bool best_fit = false, best_same = true;
      for (int i : candidates) {
        if (!used_[i]) Consider(i, need, best, best_fit, best_same);
      }
      if (best < 0 || (max_sub_ <= 0 && !best_same)) return {};
      used_[best] = true;
      picked.push_back(best);
      need -= free_[best];
      if (!best_same) --max_sub_;
    }
    return picked;
  }

 private:
  bool SubUsed(int i) const {
    const int first = (i >> sub_level_) << sub_level_;
    for (int j = first; j < std::min<int>(first + (1 << sub_level_), used_.size()); ++j) {
      if (used_[j]) return true;
    }
    return false;
  }

  void Consider(int i, int need, int& best, bool& best_fit, bool& best_same) const {
    const bool fit = free_[i] >= need;
    if (use_sub_ && (best < 0 || (best >> sub_level_) != (i >> sub_level_))) {
      const bool same = SubUsed(i);
      if (best < 0 || (same && !best_same)) {
        best = i, best_fit = fit, best_same = same;
        return;
      }
      if (!same && best_same) return;
      const int sub = sub_free_[i >> sub_level_];
      const int best_sub = sub_free_[best >> sub_level_];
      const bool sub_fits = sub >= need, best_sub_fits = best_sub >= need;
      if (sub_fits != best_sub_fits) {
        if (sub_fits) best = i, best_fit = fit, best_same = same;
        return;
      }
      // Both hold the rest: the one with fewer free nodes; neither: the one with more.
      if (sub != best_sub) {
        if (sub_fits == (sub < best_sub)) best = i, best_fit = fit, best_same = same;
        return;
      }
    }
    if (best < 0 || (fit && !best_fit) || (!fit && !best_fit && free_[i] >= free_[best]) ||
        (fit && free_[i] <= free_[best])) {
      best = i, best_fit = fit;
    }
  }

  std::vector<int> free_;
  std::vector<bool> used_;
  std::vector<int> sub_free_;
  int sub_level_;
  bool use_sub_;
  int max_sub_;
};

// Places `n` nodes (a job, or one segment of it) on the hosts `usable` allows, as
// eval_nodes_block does: appends (base block, host) pairs to `out`, or says why not.
absl::Status PlaceInBlocks(const SlurmBlockLayout& layout, const std::vector<uint8_t>& usable,
                           int n, std::vector<std::pair<int, HostId>>& out, std::string& how) {
  const int bases = static_cast<int>(layout.base_blocks.size());
  std::vector<int> free(bases, 0);
  for (int b = 0; b < bases; ++b) {
    for (HostId h : layout.base_blocks[b]) free[b] += usable[h];
  }
  // The level from the job's size (_get_block_level).
  const std::vector<bool> configured = ConfiguredLevels(layout);
  const int wanted =
      std::bit_width(static_cast<unsigned>(CeilDiv(n, layout.base_block_nodes) - 1));  // ceil(log2)
  int sub_level = 0;
  for (int l = wanted - 1; l > 0; --l) {
    if (l < static_cast<int>(configured.size()) && configured[l]) {
      sub_level = l;
      break;
    }
  }
  int per_block = bases;  // larger than every level: the cluster is one block
  for (int l = wanted; l < static_cast<int>(configured.size()); ++l) {
    if (configured[l]) {
      per_block = 1 << l;
      break;
    }
  }
  const int per_sub = 1 << sub_level;
  const int max_sub = CeilDiv(n, per_sub * layout.base_block_nodes);
  const bool use_sub = per_block != per_sub * max_sub;
  // The block: enough nodes in its max_sub fullest sub-blocks, the fewest free nodes.
  int chosen = -1, chosen_free = 0;
  for (int k = 0; k * per_block < bases; ++k) {
    const int first = k * per_block, last = std::min(bases, first + per_block);
    int total = 0;
    std::vector<int> sub_free;
    for (int b = first; b < last; ++b) {
      total += free[b];
      if ((b - first) % per_sub == 0) sub_free.push_back(0);
      sub_free.back() += free[b];
    }
    int avail = total;
    if (use_sub) {
      std::sort(sub_free.rbegin(), sub_free.rend());
      avail = 0;
      for (int j = 0; j < std::min<int>(max_sub, sub_free.size()); ++j) avail += sub_free[j];
    }
    if (avail >= n && (chosen < 0 || total <= chosen_free)) chosen = k, chosen_free = total;
  }
  if (chosen < 0) {
    return absl::ResourceExhaustedError(absl::StrCat("slurm-block: no suitable topology unit: no ",
                                                     "block of ", per_block, " base block(s) has ",
                                                     n, " free nodes"));
  }
  std::vector<int> candidates;
  for (int b = chosen * per_block; b < std::min(bases, (chosen + 1) * per_block); ++b) {
    candidates.push_back(b);
  }
  BaseBlockPicker picker(free, sub_level, use_sub, max_sub);
  const std::vector<int> picked = picker.Pick(candidates, n);
  if (picked.empty()) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "slurm-block: the block of ", per_block, " base block(s) from ", chosen * per_block,
        " cannot hold ", n, " nodes in ", max_sub, " sub-block(s)"));
  }
  // Nodes in node-table order, base block by base block as picked.
  int need = n;
  for (int b : picked) {
    std::vector<HostId> hosts = layout.base_blocks[b];
    std::sort(hosts.begin(), hosts.end());
    for (HostId h : hosts) {
      if (need > 0 && usable[h]) out.emplace_back(b, h), --need;
    }
  }
  absl::StrAppend(&how, how.empty() ? "" : "; ", "block of ", per_block, " base block(s) from ",
                  chosen * per_block, ", ", picked.size(), " base block(s) used");
  return absl::OkStatus();
}

class SlurmBlockPolicy final : public PlacementPolicy {
 public:
  absl::string_view name() const override { return kSlurmBlockPolicyName; }
  absl::StatusOr<std::vector<Candidate>> Propose(const PlacementContext& ctx) const override {
    const SlurmBlockLayout layout = SlurmBlockLayoutOf(ctx.fabric);
    if (layout.base_blocks.empty() || layout.base_block_nodes == 0) {
      return absl::ResourceExhaustedError("slurm-block: the fabric has no base blocks");
    }
    std::vector<uint8_t> usable(ctx.fabric.hosts().size(), 0);
    for (size_t h = 0; h < usable.size(); ++h) usable[h] = ctx.inventory.eligible(h);
    // --segment: segments one after another, each like a job of its own (a segment larger
    // than the job is ignored, as Slurm does).
    const int n = ctx.nodes;
    const int segment = ctx.job.segment > 0 && ctx.job.segment < n ? ctx.job.segment : n;
    Candidate c;
    std::vector<std::pair<int, HostId>> taken;
    for (int done = 0; done < n; done += segment) {
      const size_t before = taken.size();
      absl::Status placed = PlaceInBlocks(layout, usable, segment, taken, c.how);
      if (!placed.ok()) {
        if (segment == n) return placed;
        return absl::ResourceExhaustedError(
            absl::StrCat(placed.message(), " (segment ", done / segment + 1, ")"));
      }
      for (size_t i = before; i < taken.size(); ++i) usable[taken[i].second] = 0;
    }
    // Tasks numbered block by block in configuration order (26.05).
    std::sort(taken.begin(), taken.end());
    for (const auto& [b, h] : taken) c.node_hosts.push_back(h);
    return std::vector<Candidate>{std::move(c)};
  }
};

}  // namespace

PlacementPolicyPtr MakeSlurmBlockPolicy() { return std::make_unique<SlurmBlockPolicy>(); }

}  // namespace topoplace::sched
