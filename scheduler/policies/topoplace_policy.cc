#include "scheduler/policies/topoplace_policy.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <span>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/framework/domain_select.h"
#include "scheduler/traffic/repeated_add.h"

namespace topoplace::sched {
namespace {

// Single-block candidates considered when the job fits one block: the best fits, so the
// scorers (link health, fragmentation) can break ties between equally tight blocks.
constexpr int kBlockCandidates = 3;
// Pods tried at the pod level, best fit first.
constexpr int kPodCandidates = 2;
// Multi-block candidates handed to the engine's full evaluation: the cheapest by
// cross-block bytes, plus at most one more within 2% of it for the other scorers to
// weigh. The node-level estimate is exact for node-aligned dimensions, so candidates
// further behind rarely win and would only cost time on big jobs.
constexpr size_t kMultiBlockCandidates = 2;
constexpr double kNearTieFraction = 0.02;

// How node slots are laid out over the chosen blocks. Units are the node groups that
// should not be split across blocks; node_order lists node slots in packing order.
struct Cut {
  std::string name;
  int unit = 1;
  std::vector<int> node_order;
};

// Units = nodes sharing one coordinate of `dim`, so that block boundaries cut only `dim`'s
// groups (pp: pipeline stages, the boundary crosses PP links; dp: DP-index columns, the
// boundary crosses DP rings). Needs each node to hold a single coordinate of `dim`.
std::optional<Cut> MakeCut(const PlacementContext& ctx, Dim dim) {
  const RankLayout& layout = ctx.layout;
  const int g = ctx.job.gpus_per_node;
  if (layout.size(dim) <= 1 || layout.stride(dim) % g != 0) return std::nullopt;
  Cut cut{absl::StrCat(DimName(dim), "-aligned"), ctx.nodes / layout.size(dim),
          std::vector<int>(ctx.nodes)};
  // Nodes by coordinate, in node order within one coordinate (a counting sort: stable).
  std::vector<int> first(layout.size(dim) + 1, 0);
  for (int k = 0; k < ctx.nodes; ++k) ++first[layout.Coord(k * g, dim) + 1];
  for (size_t c = 1; c < first.size(); ++c) first[c] += first[c - 1];
  for (int k = 0; k < ctx.nodes; ++k) cut.node_order[first[layout.Coord(k * g, dim)]++] = k;
  return cut;
}

// Nodes in rank order, no unit: what a rank-order launcher does with a host list.
Cut PlainCut(const PlacementContext& ctx) {
  Cut cut{"node-order", 1, std::vector<int>(ctx.nodes)};
  std::iota(cut.node_order.begin(), cut.node_order.end(), 0);
  return cut;
}

// (block, hosts) in packing order.
using BlockSequence = std::vector<std::pair<int32_t, int>>;

enum class Amounts { kGreedy, kUnitTrimmed };
enum class Order { kSelection, kBlockId, kResidueChain };

// Spends the slack of a greedy selection (full capacity of the chosen blocks minus the
// need) on trimming each block's amount to a multiple of `unit`, smallest remainders
// first, so that more block boundaries fall between units.
void TrimToUnits(std::vector<Take>& takes, std::span<const int> cap, int need, int unit) {
  int slack = -need;
  for (Take& t : takes) {
    t.amount = cap[t.index];
    slack += t.amount;
  }
  std::vector<Take*> order;
  for (Take& t : takes) order.push_back(&t);
  std::stable_sort(order.begin(), order.end(), [unit](const Take* a, const Take* b) {
    return a->amount % unit < b->amount % unit;
  });
  for (Take* t : order) {
    const int r = t->amount % unit;
    if (r > 0 && r <= slack) {
      t->amount -= r;
      slack -= r;
    }
  }
  // What is left is whole units or cannot be made clean: drop it from the smallest.
  std::stable_sort(order.begin(), order.end(),
                   [](const Take* a, const Take* b) { return a->amount < b->amount; });
  for (Take* t : order) {
    const int d = std::min(slack, t->amount);
    t->amount -= d;
    slack -= d;
  }
  std::erase_if(takes, [](const Take& t) { return t.amount == 0; });
}

// Clean blocks (whole units) first; then each next block is one whose remainder closes
// the open unit exactly, else the one with the largest remainder.
void ChainResidues(std::vector<Take>& takes, int unit) {
  std::vector<Take> ordered, dirty;
  for (const Take& t : takes) (t.amount % unit == 0 ? ordered : dirty).push_back(t);
  int prefix = 0;
  while (!dirty.empty()) {
    const int want = (unit - prefix % unit) % unit;
    size_t pick = 0;
    for (size_t i = 0; i < dirty.size(); ++i) {
      const int r = dirty[i].amount % unit;
      if (want != 0 && r == want) {
        pick = i;
        break;
      }
      if (r > dirty[pick].amount % unit) pick = i;
    }
    prefix += dirty[pick].amount;
    ordered.push_back(dirty[pick]);
    dirty.erase(dirty.begin() + static_cast<std::ptrdiff_t>(pick));
  }
  takes = std::move(ordered);
}

// True if `domain` spans several pods, so blocks may be chosen pod by pod.
bool MultiPod(const Fabric& fabric, const Domain& domain) {
  return domain.level == DomainLevel::kCluster && fabric.pods().size() > 1;
}

// The blocks of `domain`, grouped by pod when `by_pod` (pods are chosen first, which keeps
// core crossings few, possibly at the price of more blocks), else one group.
std::vector<std::vector<int32_t>> GroupsOf(const Fabric& fabric, const Domain& domain,
                                           bool by_pod) {
  std::vector<std::vector<int32_t>> groups;
  if (by_pod && MultiPod(fabric, domain)) {
    for (const Pod& pod : fabric.pods()) groups.push_back(pod.blocks);
  } else {
    groups.push_back(BlocksOf(fabric, domain));
  }
  return groups;
}

// The greedy part of a block choice: which groups (pods, or the whole domain) and, inside
// each, which blocks with how many granules. The amount and order variants only rework
// these takes, so one selection serves every variant and every cut.
struct GroupPick {
  std::vector<int32_t> blocks;  // the group's blocks
  std::vector<int> cap;         // free granules per block of the group
  int amount = 0;               // granules taken from the group
  std::vector<Take> takes;      // GreedyBestFit(cap, amount)
};
using BlockSelection = std::vector<GroupPick>;

// Selects blocks for the job in `domain`, taking only whole granules from a block, or
// nullopt if the domain cannot hold the job that way.
std::optional<BlockSelection> SelectBlocks(const PlacementContext& ctx, const Domain& domain,
                                           int granule, bool by_pod) {
  const std::vector<std::vector<int32_t>> groups = GroupsOf(ctx.fabric, domain, by_pod);
  // Free granules of a block, none in a block to avoid.
  const auto free = [&ctx, granule](int32_t b) {
    const bool avoid = !ctx.avoid_blocks.empty() && ctx.avoid_blocks[b] != 0;
    return avoid ? 0 : ctx.inventory.block_free(b) / granule;
  };
  std::vector<int> group_cap(groups.size(), 0);
  for (size_t i = 0; i < groups.size(); ++i) {
    for (int32_t b : groups[i]) group_cap[i] += free(b);
  }
  const std::vector<Take> group_takes = GreedyBestFit(group_cap, ctx.nodes / granule);
  if (group_takes.empty()) return std::nullopt;
  BlockSelection selection;
  for (const Take& gt : group_takes) {
    GroupPick pick;
    pick.blocks = groups[gt.index];
    pick.cap.resize(pick.blocks.size());
    for (size_t j = 0; j < pick.blocks.size(); ++j) pick.cap[j] = free(pick.blocks[j]);
    pick.amount = gt.amount;
    pick.takes = GreedyBestFit(pick.cap, gt.amount);
    selection.push_back(std::move(pick));
  }
  return selection;
}

// The (block, hosts) sequence of `selection` under one amount and order variant.
BlockSequence Arrange(const BlockSelection& selection, int granule, int unit, Amounts amounts,
                      Order order) {
  BlockSequence seq;
  for (const GroupPick& pick : selection) {
    std::vector<Take> takes = pick.takes;
    if (amounts == Amounts::kUnitTrimmed && unit > 1) {
      TrimToUnits(takes, pick.cap, pick.amount, unit);
    }
    if (order == Order::kBlockId) {
      std::sort(takes.begin(), takes.end(),
                [](const Take& a, const Take& b) { return a.index < b.index; });
    } else if (order == Order::kResidueChain && unit > 1) {
      ChainResidues(takes, unit);
    }
    for (const Take& t : takes) seq.emplace_back(pick.blocks[t.index], t.amount * granule);
  }
  return seq;
}

// Chooses blocks for the job in `domain`. With `granule` > 1 only whole granules are
// taken from a block (aligned packing); otherwise amounts and order follow the variant.
std::optional<BlockSequence> ChooseBlocks(const PlacementContext& ctx, const Domain& domain,
                                          int granule, int unit, bool by_pod, Amounts amounts,
                                          Order order) {
  const std::optional<BlockSelection> selection = SelectBlocks(ctx, domain, granule, by_pod);
  if (!selection) return std::nullopt;
  return Arrange(*selection, granule, unit, amounts, order);
}

// The block of every node slot if `seq` is laid out along `cut`.
void NodeBlocks(const PlacementContext& ctx, const BlockSequence& seq, const Cut& cut,
                std::vector<int32_t>& node_block) {
  node_block.assign(ctx.nodes, -1);
  int i = 0;
  for (const auto& [block, count] : seq) {
    for (int c = 0; c < count; ++c) node_block[cut.node_order[i++]] = block;
  }
}

// The job's node-level communication graph: an edge per pair of nodes whose ranks talk at
// a fixed node distance (dimensions with a stride that is a multiple of gpus_per_node),
// weighted by the bytes per iteration between them. Dimensions that stay inside a node,
// or straddle nodes irregularly, are left out: the graph ranks layouts cheaply, the
// engine's full evaluation gives the real numbers. Edges come in segments of one
// dimension, whose edges all weigh the same.
struct NodeGraph {
  struct Segment {
    size_t end;     // edges [end of the previous segment, end)
    double weight;  // bytes per iteration of each of its edges
  };
  std::vector<int32_t> from, to;
  std::vector<Segment> segments;
};

NodeGraph BuildNodeGraph(const PlacementContext& ctx) {
  NodeGraph graph;
  const RankLayout& layout = ctx.layout;
  const int g = ctx.job.gpus_per_node;
  for (Dim d : kAllDims) {
    const int size = layout.size(d);
    const double pair = ctx.traffic.pair(d);
    if (size <= 1 || pair <= 0 || layout.stride(d) % g != 0) continue;
    const Pattern pattern = PatternOf(d);
    const size_t per_node = pattern == Pattern::kAllToAll ? size - 1 : 1;
    graph.from.reserve(graph.from.size() + per_node * ctx.nodes);
    graph.to.reserve(graph.to.size() + per_node * ctx.nodes);
    const auto add = [&](int a, int b) {
      graph.from.push_back(a);
      graph.to.push_back(b);
    };
    for (int k = 0; k < ctx.nodes; ++k) {
      const int rank = k * g;
      const int coord = layout.Coord(rank, d);
      switch (pattern) {
        case Pattern::kRing:
          add(k, layout.Neighbor(rank, d) / g);
          break;
        case Pattern::kChain:
          if (coord + 1 < size) add(k, layout.Neighbor(rank, d) / g);
          break;
        case Pattern::kAllToAll:
          for (int c = 0; c < size; ++c) {
            if (c != coord) add(k, layout.WithCoord(rank, d, c) / g);
          }
          break;
      }
    }
    // A chain edge stands for both directions.
    const double weight = (pattern == Pattern::kChain ? 2 : 1) * g * pair;
    graph.segments.push_back({graph.from.size(), weight});
  }
  return graph;
}

// Bytes per iteration of `graph` that cross blocks when node k sits in node_block[k].
// Counts crossing edges per segment and books them with AddRepeated: bit for bit the sum
// of adding each crossing edge's bytes in edge order.
double CrossBlockBytes(const NodeGraph& graph, std::span<const int32_t> node_block) {
  double bytes = 0;
  size_t e = 0;
  for (const NodeGraph::Segment& segment : graph.segments) {
    int64_t crossing = 0;
    for (; e < segment.end; ++e) {
      crossing += node_block[graph.from[e]] != node_block[graph.to[e]];
    }
    bytes = AddRepeated(bytes, segment.weight, crossing);
  }
  return bytes;
}

Candidate Materialize(const PlacementContext& ctx, const BlockSequence& seq, const Cut& cut,
                      std::string how) {
  std::vector<uint8_t> taken(ctx.fabric.hosts().size(), 0);
  std::vector<HostId> hosts;
  hosts.reserve(ctx.nodes);
  for (const auto& [block, count] : seq) ctx.inventory.TakeHosts(block, count, taken, hosts);
  Candidate c;
  c.node_hosts.assign(ctx.nodes, -1);
  for (int i = 0; i < ctx.nodes; ++i) c.node_hosts[cut.node_order[i]] = hosts[i];
  c.how = std::move(how);
  return c;
}

std::string DomainName(const Domain& d) {
  return d.level == DomainLevel::kPod ? absl::StrCat("pod ", d.id) : "the cluster";
}

// Single-host-granule selections of one domain, pods first and (on a multi-pod domain)
// across all its blocks: what every hybrid layout of the domain starts from.
struct HybridSelections {
  std::optional<BlockSelection> by_pod, flat;
};

HybridSelections SelectForHybrids(const PlacementContext& ctx, const Domain& domain) {
  HybridSelections out;
  out.by_pod = SelectBlocks(ctx, domain, 1, true);
  if (out.by_pod && MultiPod(ctx.fabric, domain)) out.flat = SelectBlocks(ctx, domain, 1, false);
  return out;
}

// The layout of `cut` over `domain` with the fewest cross-block bytes among the amount
// and order variants, or nullopt if the domain cannot hold the job. Variants that come
// out identical to an earlier one are not re-scored (they cannot be strictly better).
std::optional<Candidate> BestHybrid(const PlacementContext& ctx, const NodeGraph& graph,
                                    const Domain& domain, const Cut& cut,
                                    const HybridSelections& selections) {
  std::vector<BlockSequence> seen;
  size_t best = 0;
  double best_bytes = 0;
  std::vector<int32_t> scratch;
  for (bool by_pod : {true, false}) {
    if (!by_pod && !MultiPod(ctx.fabric, domain)) break;
    const std::optional<BlockSelection>& selection = by_pod ? selections.by_pod : selections.flat;
    if (!selection) return std::nullopt;
    for (Amounts amounts : {Amounts::kGreedy, Amounts::kUnitTrimmed}) {
      for (Order order : {Order::kSelection, Order::kBlockId, Order::kResidueChain}) {
        BlockSequence seq = Arrange(*selection, 1, cut.unit, amounts, order);
        if (std::find(seen.begin(), seen.end(), seq) != seen.end()) continue;
        NodeBlocks(ctx, seq, cut, scratch);
        const double bytes = CrossBlockBytes(graph, scratch);
        if (seen.empty() || bytes < best_bytes) {
          best = seen.size();
          best_bytes = bytes;
        }
        seen.push_back(std::move(seq));
      }
    }
  }
  return Materialize(ctx, seen[best], cut,
                     absl::StrCat(cut.name, " packing across blocks of ", DomainName(domain)));
}

// Several blocks of one pod, else of the whole cluster. In the smallest domain that fits,
// every layout competes (which dimension is cheaper to cut depends on the model); larger
// domains are tried only for an aligned layout (no unit split) when the smallest admits
// none. Returns the cheapest candidates by cross-block bytes (see kMultiBlockCandidates),
// or none.
std::vector<Candidate> MultiBlockCandidates(const PlacementContext& ctx, DomainLevel allowed) {
  const Inventory& inv = ctx.inventory;
  std::vector<Candidate> out;
  const NodeGraph graph = BuildNodeGraph(ctx);
  std::vector<Cut> cuts;
  for (Dim dim : {Dim::kPp, Dim::kDp}) {
    if (std::optional<Cut> cut = MakeCut(ctx, dim)) cuts.push_back(std::move(*cut));
  }
  std::vector<Domain> domains;
  std::vector<Domain> pods = FittingDomains(inv, DomainLevel::kPod, ctx.nodes);
  for (size_t i = 0; i < pods.size() && i < kPodCandidates; ++i) domains.push_back(pods[i]);
  if (allowed == DomainLevel::kCluster) {
    for (const Domain& d : FittingDomains(inv, DomainLevel::kCluster, ctx.nodes)) {
      domains.push_back(d);
    }
  }
  bool aligned_found = false;
  for (size_t i = 0; i < domains.size() && !aligned_found; ++i) {
    const Domain& domain = domains[i];
    for (const Cut& cut : cuts) {
      for (bool by_pod : {true, false}) {
        if (!by_pod && !MultiPod(ctx.fabric, domain)) break;
        std::optional<BlockSequence> seq = ChooseBlocks(ctx, domain, cut.unit, cut.unit, by_pod,
                                                        Amounts::kGreedy, Order::kSelection);
        if (!seq) continue;
        out.push_back(Materialize(
            ctx, *seq, cut,
            absl::StrCat(cut.name, " packing, whole units per block, in ", DomainName(domain),
                         by_pod && MultiPod(ctx.fabric, domain) ? ", pods first" : "")));
        aligned_found = true;
      }
    }
    if (i > 0) continue;
    const HybridSelections selections = SelectForHybrids(ctx, domain);
    for (const Cut& cut : cuts) {
      if (std::optional<Candidate> c = BestHybrid(ctx, graph, domain, cut, selections)) {
        out.push_back(*std::move(c));
      }
    }
    if (std::optional<Candidate> c = BestHybrid(ctx, graph, domain, PlainCut(ctx), selections)) {
      out.push_back(*std::move(c));
    }
  }
  if (out.size() <= 1) return out;
  std::vector<std::pair<double, size_t>> ranked;
  std::vector<int32_t> node_block(ctx.nodes);
  for (size_t i = 0; i < out.size(); ++i) {
    for (int k = 0; k < ctx.nodes; ++k) {
      node_block[k] = ctx.fabric.hosts()[out[i].node_hosts[k]].block;
    }
    ranked.emplace_back(CrossBlockBytes(graph, node_block), i);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Candidate> kept;
  const double limit = ranked[0].first * (1 + kNearTieFraction);
  for (size_t i = 0; i < kMultiBlockCandidates && (i == 0 || ranked[i].first <= limit); ++i) {
    kept.push_back(std::move(out[ranked[i].second]));
  }
  return kept;
}

// Per block, 1 if its leaves' uplinks carry more of the running jobs' traffic than the
// blocks' mean (the mean over its leaves of ctx.uplink_busy); empty when no load is known
// or no block is above the mean. The mean, not a fixed level, so that "hot" means hotter
// than the alternatives whatever the cluster's overall load.
std::vector<uint8_t> HotBlocks(const PlacementContext& ctx) {
  const std::vector<Block>& blocks = ctx.fabric.blocks();
  if (ctx.uplink_busy.empty() || blocks.empty()) return {};
  std::vector<double> heat(blocks.size(), 0);
  double mean = 0;
  for (size_t b = 0; b < blocks.size(); ++b) {
    for (SwitchId leaf : blocks[b].leaves) {
      if (leaf >= 0 && static_cast<size_t>(leaf) < ctx.uplink_busy.size()) {
        heat[b] += ctx.uplink_busy[leaf];
      }
    }
    if (!blocks[b].leaves.empty()) heat[b] /= static_cast<double>(blocks[b].leaves.size());
    mean += heat[b] / static_cast<double>(blocks.size());
  }
  std::vector<uint8_t> hot(blocks.size(), 0);
  bool any = false;
  for (size_t b = 0; b < blocks.size(); ++b) {
    hot[b] = heat[b] > mean ? 1 : 0;
    any = any || hot[b] != 0;
  }
  return any ? hot : std::vector<uint8_t>{};
}

}  // namespace

absl::StatusOr<std::vector<Candidate>> TopoplacePolicy::Propose(const PlacementContext& ctx) const {
  const Inventory& inv = ctx.inventory;
  const DomainLevel allowed =
      ctx.job.mode == ConstraintMode::kHard ? MaxLevelFor(ctx.job.max_tier) : DomainLevel::kCluster;
  std::vector<Candidate> out;

  // 0. One host: nothing crosses the network, so the only thing placement decides is what
  // is left for the jobs behind it. The first host in fabric order with room packs small
  // jobs together and keeps whole hosts (and whole blocks) free; best fit by blocks' free
  // host counts breaks whole hosts for sub-node jobs, and on the Philly trace that kept the
  // queue's head waiting with its GPUs free longer (docs/report/FINDINGS.md).
  if (ctx.nodes == 1) {
    for (HostId h = 0; h < static_cast<HostId>(ctx.fabric.hosts().size()); ++h) {
      if (!inv.eligible(h)) continue;
      return std::vector<Candidate>{{{h}, "first host in fabric order with room (one host)"}};
    }
  }

  // 1. One block: every DP and PP pair stays under the block's leaves.
  std::vector<Domain> blocks = FittingDomains(inv, DomainLevel::kBlock, ctx.nodes);
  for (size_t i = 0; i < blocks.size() && i < kBlockCandidates; ++i) {
    Candidate c;
    std::vector<uint8_t> taken(ctx.fabric.hosts().size(), 0);
    inv.TakeHosts(blocks[i].id, ctx.nodes, taken, c.node_hosts);
    c.how = absl::StrCat("best fit in block ", blocks[i].id, " (", blocks[i].free, " free nodes)");
    out.push_back(std::move(c));
  }
  if (!out.empty()) return out;
  if (allowed == DomainLevel::kBlock) {
    int largest = 0;
    for (size_t b = 0; b < ctx.fabric.blocks().size(); ++b) {
      largest = std::max(largest, inv.block_free(static_cast<int32_t>(b)));
    }
    return absl::ResourceExhaustedError(
        absl::StrCat("max_tier=", MaxTierName(ctx.job.max_tier), " (hard): the job needs ",
                     ctx.nodes, " nodes in one block, the freest block has ", largest));
  }

  // 2. Several blocks (see MultiBlockCandidates).
  out = MultiBlockCandidates(ctx, allowed);

  // 3. With the running jobs' uplink load known: the best layout that leaves out the
  // blocks whose uplinks are hotter than average, if the others can hold the job. The
  // engine's scorers weigh it against the others (its spine bytes against their hot bytes).
  if (const std::vector<uint8_t> hot = HotBlocks(ctx); !out.empty() && !hot.empty()) {
    PlacementContext cool = ctx;
    cool.avoid_blocks = hot;
    std::vector<Candidate> avoiding = MultiBlockCandidates(cool, allowed);
    if (!avoiding.empty()) {
      const bool known = std::any_of(out.begin(), out.end(), [&](const Candidate& c) {
        return c.node_hosts == avoiding.front().node_hosts;
      });
      if (!known) {
        avoiding.front().how += ", leaving out blocks with hotter than average uplinks";
        out.push_back(std::move(avoiding.front()));
      }
    }
  }
  if (!out.empty()) return out;
  return absl::ResourceExhaustedError(
      absl::StrCat("max_tier=", MaxTierName(ctx.job.max_tier), " (hard): no ",
                   allowed == DomainLevel::kPod ? "pod" : "domain", " has ", ctx.nodes,
                   " free nodes (the cluster has ", inv.total_free(), ")"));
}

}  // namespace topoplace::sched
