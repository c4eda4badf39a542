#include "scheduler/placement/candidate_sketch.h"

#include <algorithm>
#include <span>
#include <utility>

#include "scheduler/mapping/rank_map.h"
#include "scheduler/traffic/repeated_add.h"

namespace topoplace::sched {

namespace {

// Bytes as the walk books them may come out a few units in the last place below the same
// bytes added in the node graph's order; a millionth less is below both.
constexpr double kBytesRoundingMargin = 1 - 1e-6;

// True when `key_of(x)` maps every x of one `group_of(x)` to one non-negative key.
template <typename Items, typename GroupOf, typename KeyOf>
bool OneKeyPerGroup(const Items& items, size_t groups, GroupOf group_of, KeyOf key_of) {
  std::vector<int32_t> seen(groups, -2);  // -2: nothing seen yet
  for (const auto& item : items) {
    const int32_t group = group_of(item);
    if (group < 0) continue;
    const int32_t key = key_of(item);
    if (key < 0 || (seen[group] != -2 && seen[group] != key)) return false;
    seen[group] = key;
  }
  return true;
}

// True when every value is the first one: then no edge joins two different values.
bool AllEqual(std::span<const int32_t> values) {
  return std::all_of(values.begin(), values.end(), [&](int32_t v) { return v == values.front(); });
}

}  // namespace

ClimbFacts ClimbFactsOf(const TierIndex& tiers) {
  const Fabric& fabric = tiers.fabric();
  const std::vector<Host>& hosts = fabric.hosts();
  const auto host_block = [&](const Nic& nic) { return hosts[nic.host].block; };
  ClimbFacts facts;
  facts.blocks_reach_spine =
      OneKeyPerGroup(
          fabric.nics(), fabric.switches().size(), [](const Nic& nic) { return nic.leaf; },
          host_block) &&
      OneKeyPerGroup(
          hosts, fabric.nvlink_domains().size(), [](const Host& h) { return h.nvlink_domain_id; },
          [](const Host& h) { return h.block; });
  if (!facts.blocks_reach_spine) return facts;
  // Tier-2 groups are numbered by TierIndex; a fabric without that tier gives every NIC
  // its own value, which is harmless here: different values never meet at tier 2.
  std::vector<NicId> cabled;
  int32_t max_group = -1;
  for (NicId n = 0; n < static_cast<NicId>(fabric.nics().size()); ++n) {
    if (fabric.nics()[n].leaf < 0) continue;
    cabled.push_back(n);
    max_group = std::max(max_group, tiers.nic(n).domain[1]);
  }
  facts.pods_reach_core = OneKeyPerGroup(
      cabled, max_group < 0 ? 0 : static_cast<size_t>(max_group) + 1,
      [&](NicId n) { return tiers.nic(n).domain[1]; },
      [&](NicId n) { return hosts[fabric.nics()[n].host].pod; });
  int32_t indexes = 0;
  for (NicId n : cabled) indexes = std::max(indexes, fabric.nics()[n].index + 1);
  const size_t pod_keys = std::max<size_t>(1, fabric.pods().size());
  facts.index_spine_per_pod = OneKeyPerGroup(
      cabled, pod_keys * static_cast<size_t>(indexes),
      [&](NicId n) {
        const Nic& nic = fabric.nics()[n];
        const int32_t pod = std::max(0, hosts[nic.host].pod);
        return nic.index < 0 ? -1 : pod * indexes + nic.index;
      },
      [&](NicId n) { return tiers.nic(n).domain[1]; });
  facts.one_leaf_per_rail_per_block = OneKeyPerGroup(
      cabled, fabric.blocks().size() * static_cast<size_t>(indexes),
      [&](NicId n) {
        const Nic& nic = fabric.nics()[n];
        return nic.index < 0 ? -1 : hosts[nic.host].block * indexes + nic.index;
      },
      [&](NicId n) { return fabric.nics()[n].leaf; });
  return facts;
}

CandidateSketcher::CandidateSketcher(const PlacementContext& ctx, const HealthView& health,
                                     const TierIndex& tiers, ClimbFacts climb,
                                     RoutingOptions routing)
    : ctx_(ctx),
      health_(health),
      tiers_(tiers),
      climb_(climb),
      leaf_up_knowable_(LeafUpKnowable()),
      same_index_pairs_(routing.rail_local || SnakeStageNodes(ctx.job) == 0),
      graph_(BuildNodeGraph(ctx.layout, ctx.traffic, ctx.job.gpus_per_node, ctx.nodes)),
      block_stamp_(ctx.fabric.blocks().size(), -1),
      node_block_(ctx.nodes),
      gpus_in_block_(ctx.fabric.blocks().size(), 0),
      pod_seen_(ctx.fabric.pods().size(), 0),
      block_sent_(ctx.fabric.blocks().size(), 0.0),
      block_edges_(ctx.fabric.blocks().size(), 0),
      block_host_(ctx.fabric.blocks().size(), -1) {}

CandidateSketch CandidateSketcher::Sketch(std::span<const HostId> node_hosts) const {
  const std::vector<Host>& hosts = ctx_.fabric.hosts();
  const int g = ctx_.job.gpus_per_node;
  CandidateSketch out;
  PlanFootprint& fp = out.footprint;

  // The footprint's block and pod counts, as ComputeFootprint takes them from the slots:
  // node k's g ranks sit on node_hosts[k]; consecutive equal hosts are one node.
  std::fill(gpus_in_block_.begin(), gpus_in_block_.end(), 0);
  std::fill(pod_seen_.begin(), pod_seen_.end(), 0);
  node_block_.resize(node_hosts.size());
  node_pod_.resize(node_hosts.size());
  for (size_t k = 0; k < node_hosts.size(); ++k) {
    const Host& host = hosts[node_hosts[k]];
    node_block_[k] = host.block;
    node_pod_[k] = host.pod;
    if (host.block >= 0) gpus_in_block_[host.block] += g;
    if (k > 0 && node_hosts[k] == node_hosts[k - 1]) continue;
    if (host.pod >= 0 && !pod_seen_[host.pod]) {
      pod_seen_[host.pod] = 1;
      ++fp.pods_used;
    }
    ++fp.nodes;
    if (health_.host_degraded(node_hosts[k])) ++fp.degraded_hosts;
  }
  CountBlocks(ctx_.inventory, health_, gpus_in_block_, fp);

  TrafficReport& traffic = out.traffic;
  for (Dim d : kAllDims) {
    const int size = ctx_.layout.size(d);
    if (size <= 1) continue;
    GroupSpread& spread = traffic.spread[static_cast<int>(d)];
    const int stride = ctx_.layout.stride(d);
    if (stride % g == 0) {
      SpreadOf(d, node_block_, spread);
    } else {
      // Inside one node (exactly 1), or straddling nodes (at least 1).
      spread.mean_blocks = spread.max_blocks = 1;
    }
  }
  if (climb_.blocks_reach_spine && !ExactSplit(node_hosts, traffic)) {
    const double crossing = CrossBlockBytes(graph_, node_block_);
    traffic.tier_bytes[static_cast<int>(Tier::kSpine)] = crossing * kBytesRoundingMargin;
    if (crossing > 0) {
      const bool core =
          climb_.pods_reach_core && !AllEqual(node_pod_) && CrossBlockBytes(graph_, node_pod_) > 0;
      traffic.max_hops = SwitchHops(core ? Tier::kCore : Tier::kSpine);
    }
  }
  if (leaf_up_knowable_) traffic.network.leaf_up_sparse = LeafUp(node_hosts);
  return out;
}

bool CandidateSketcher::ExactSplit(std::span<const HostId> node_hosts,
                                   TrafficReport& traffic) const {
  const bool pods = !ctx_.fabric.pods().empty();
  if (!climb_.index_spine_per_pod || (pods && !climb_.pods_reach_core) || !same_index_pairs_) {
    return false;
  }
  // Nodes all in one pod: nothing crosses pods (CrossingEdges would count 0 each time).
  const bool across_pods_possible = pods && !AllEqual(node_pod_);
  const int g = ctx_.job.gpus_per_node;
  for (HostId h : node_hosts) {
    if (tiers_.aligned_gpus(h) == 0) return false;  // NIC indexes differ between hosts
  }
  const int spine = static_cast<int>(Tier::kSpine), core = static_cast<int>(Tier::kCore);
  double tier_bytes[2] = {0, 0};  // spine, core: summed over dimensions as Finish does
  for (Dim d : kAllDims) {
    const int size = ctx_.layout.size(d);
    const int stride = ctx_.layout.stride(d);
    if (size <= 1 || stride % g != 0) continue;  // inside a node, or not known: 0 <= walk
    double dim_bytes[2] = {0, 0};
    // The dimension's own pattern, then the ring beside it, as Evaluator::Dimension walks.
    for (const auto& [pattern, pair] : {std::pair{PatternOf(d), ctx_.traffic.pair(d)},
                                        std::pair{Pattern::kRing, ctx_.traffic.ring_pair(d)}}) {
      if (pair <= 0) continue;
      const NodeGraph::Segment segment{pattern, stride / g, size, 0};
      // Rank pairs per crossing node edge: one per GPU, both ways for a chain's edge.
      const int64_t per_edge = (pattern == Pattern::kChain ? 2 : 1) * static_cast<int64_t>(g);
      const int64_t across_blocks = CrossingEdges(segment, node_block_) * per_edge;
      const int64_t across_pods =
          across_pods_possible ? CrossingEdges(segment, node_pod_) * per_edge : 0;
      dim_bytes[0] = AddRepeated(dim_bytes[0], pair, across_blocks - across_pods);
      dim_bytes[1] = AddRepeated(dim_bytes[1], pair, across_pods);
    }
    tier_bytes[0] += dim_bytes[0];
    tier_bytes[1] += dim_bytes[1];
  }
  traffic.tier_bytes[spine] = tier_bytes[0];
  traffic.tier_bytes[core] = tier_bytes[1];
  if (tier_bytes[1] > 0) {
    traffic.max_hops = SwitchHops(Tier::kCore);
  } else if (tier_bytes[0] > 0) {
    traffic.max_hops = SwitchHops(Tier::kSpine);
  }
  return true;
}

bool CandidateSketcher::LeafUpKnowable() const {
  if (ctx_.uplink_busy.empty() || !climb_.blocks_reach_spine ||
      !climb_.one_leaf_per_rail_per_block) {
    return false;
  }
  const int g = ctx_.job.gpus_per_node;
  for (Dim d : kAllDims) {
    const int size = ctx_.layout.size(d);
    if (size <= 1) continue;
    const int stride = ctx_.layout.stride(d);
    if (stride % g != 0 && g % (stride * size) != 0) return false;  // straddles nodes
  }
  return true;
}

std::vector<std::pair<SwitchId, double>> CandidateSketcher::LeafUp(
    std::span<const HostId> node_hosts) const {
  const int g = ctx_.job.gpus_per_node;
  for (size_t k = 0; k < node_hosts.size(); ++k) {
    if (tiers_.aligned_gpus(node_hosts[k]) != g || node_block_[k] < 0) return {};
  }
  // GPU j of every aligned host of a block sends through one leaf (one leaf per rail per
  // block: LeafUpKnowable), so the bytes are summed per block: per pattern, the sending
  // ends of its crossing edges in each block, times its pair bytes. One host per block
  // names the leaves.
  blocks_sending_.clear();
  for (size_t k = 0; k < node_hosts.size(); ++k) {
    const int32_t b = node_block_[k];
    if (block_host_[b] >= 0) continue;
    block_host_[b] = node_hosts[k];
    block_sent_[b] = 0;
    block_edges_[b] = 0;
    blocks_sending_.push_back(b);
  }
  const int nodes = static_cast<int>(node_hosts.size());
  const auto book = [&](Pattern pattern, int step, int size, double bytes) {
    if (bytes <= 0) return;
    const int period = step * size;
    // Each crossing edge of the pattern counts for its sender, or both ends if both send.
    for (const EdgeFamily& f : EdgeFamilies({pattern, step, size, 0})) {
      for (int base = 0; base + period <= nodes; base += period) {
        const int from = base + static_cast<int>(f.first);
        const int delta = static_cast<int>(f.delta);
        for (int p = from; p < from + f.width; ++p) {
          const int32_t a = node_block_[p], b = node_block_[p + delta];
          const int32_t d = a != b;
          block_edges_[a] += d;
          if (f.both_send) block_edges_[b] += d;
        }
      }
    }
    for (int32_t b : blocks_sending_) {
      block_sent_[b] += static_cast<double>(block_edges_[b]) * bytes;
      block_edges_[b] = 0;
    }
  };
  for (Dim d : kAllDims) {
    const int size = ctx_.layout.size(d);
    const int stride = ctx_.layout.stride(d);
    if (size <= 1 || stride % g != 0) continue;
    book(PatternOf(d), stride / g, size, ctx_.traffic.pair(d));
    book(Pattern::kRing, stride / g, size, ctx_.traffic.ring_pair(d));
  }
  // GPU j's own NIC, which also forwards rail-locally (GPU j of the peer has its index).
  // No leaf serves two blocks (blocks_reach_spine), but one may serve several NICs of a
  // host: its bytes are summed in its block's entries, in the order a per-switch array
  // would have added them.
  std::vector<std::pair<SwitchId, double>> up;
  up.reserve(blocks_sending_.size() * static_cast<size_t>(g));  // a leaf per GPU at most
  for (int32_t b : blocks_sending_) {
    if (block_sent_[b] != 0) {
      const size_t first = up.size();
      // The block's table when its first aligned host has g GPUs like this one (one leaf
      // per rail per block: the same leaves), else this host's own.
      std::span<const SwitchId> leaves = tiers_.block_gpu_leaves(b);
      if (leaves.size() != static_cast<size_t>(g)) leaves = tiers_.gpu_leaves(block_host_[b]);
      for (SwitchId leaf : leaves) {
        if (leaf < 0) continue;
        const auto same = std::find_if(up.begin() + first, up.end(),
                                       [leaf](const auto& e) { return e.first == leaf; });
        if (same == up.end()) {
          up.emplace_back(leaf, block_sent_[b]);
        } else {
          same->second += block_sent_[b];
        }
      }
    }
    block_host_[b] = -1;
  }
  return up;
}

void CandidateSketcher::SpreadOf(Dim dim, std::span<const int32_t> node_block,
                                 GroupSpread& spread) const {
  const int step = ctx_.layout.stride(dim) / ctx_.job.gpus_per_node;
  const int size = ctx_.layout.size(dim);
  const int period = step * size;
  const int nodes = static_cast<int>(node_block.size());
  std::fill(block_stamp_.begin(), block_stamp_.end(), -1);
  int group = 0;
  int64_t blocks = 0;
  for (int base = 0; base + period <= nodes; base += period) {
    for (int lo = 0; lo < step; ++lo, ++group) {
      int distinct = 0;
      for (int i = 0; i < size; ++i) {
        const int32_t b = node_block[base + lo + i * step];
        if (b < 0 || block_stamp_[b] == group) continue;
        block_stamp_[b] = group;
        ++distinct;
      }
      blocks += distinct;
      spread.max_blocks = std::max(spread.max_blocks, distinct);
    }
  }
  spread.groups = group;
  // The walk's mean over rank groups: each node group stands for g of them, all alike.
  if (group > 0) spread.mean_blocks = static_cast<double>(blocks) / group;
}

}  // namespace topoplace::sched
