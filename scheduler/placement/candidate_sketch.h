// What the engine can know of a candidate from its node slots alone, before the full
// evaluation (MapRanks, the tier attachments, the traffic walk, the footprint): which
// blocks and pods it touches, how it changes the partly used blocks, how far the groups
// of node-aligned dimensions spread, and from the job's node graph the bytes that must
// cross blocks. Scorers turn a sketch into a lower bound on their cost
// (Scorer::LowerBound), and the engine skips a candidate whose bound cannot beat the best
// plan it has evaluated: the same plan comes out, with fewer full evaluations.
//
//   const CandidateSketcher sketcher(ctx, tiers_ok);
//   const CandidateSketch s = sketcher.Sketch(candidate.node_hosts);
//   double bound = scorer.LowerBound({ctx, s.traffic, s.footprint, uplink_busy});
//
// A sketch is a TrafficReport and a PlanFootprint in which every field is either exact
// (equal to what the full evaluation computes) or a lower bound of it:
//   exact: footprint.nodes, blocks_used, pods_used, partial_blocks_before/after,
//          blocks_with_bad_uplinks, degraded_hosts;
//          traffic.spread[d].mean_blocks and max_blocks of dimensions whose stride is a
//          multiple of gpus_per_node (node-aligned) or whose groups fit in one node;
//   lower bounds: everything else (0, or 1 for the mean blocks of the other dimensions,
//          since every group touches at least one block), and in particular
//          traffic.tier_bytes[kSpine] and [kCore], the bytes that cross blocks and pods,
//          and traffic.max_hops (SwitchHops(kSpine) when any bytes cross blocks, kCore
//          when any cross pods). Where the tier of every crossing pair is known (Exact
//          split, below) the two tiers' bytes are added as the traffic walk adds them,
//          dimension by dimension, so each is at most the walk's bit for bit (equal when
//          every dimension is node-aligned); otherwise all go to kSpine, a millionth less
//          than the node graph's sum for the different order of additions.
//   exact up to rounding, or empty: traffic.network.leaf_up_sparse, the bytes leaving
//          each leaf upwards (leaf_up stays empty). Filled only when the request has
//          uplink load and every byte the job sends over the network is known at the
//          node level: every dimension is node-aligned or inside a node, every host is
//          aligned (GPU j on NIC j of rail j) and wholly taken, and a block has one leaf
//          per rail (ClimbFacts); then GPU j of a node sends to GPU j of others, and only
//          across blocks does it go up, from its own NIC's leaf. A scorer reading it
//          allows for rounding.
// The bounds on bytes and hops need GPUs in different blocks to meet at the spine or
// above (or not at all), and GPUs in different pods at the core (ClimbFacts). Without
// that, tier bytes and hops stay 0.
#ifndef TOPOPLACE_SCHEDULER_PLACEMENT_CANDIDATE_SKETCH_H_
#define TOPOPLACE_SCHEDULER_PLACEMENT_CANDIDATE_SKETCH_H_

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "scheduler/framework/footprint.h"
#include "scheduler/framework/placement_policy.h"
#include "scheduler/state/health.h"
#include "scheduler/traffic/node_graph.h"
#include "scheduler/traffic/routing.h"
#include "scheduler/traffic/tier_index.h"
#include "scheduler/traffic/traffic_report.h"

namespace topoplace::sched {

// What the fabric's shape promises about pairs of GPUs far apart. O(NICs + hosts);
// computed once per fabric.
struct ClimbFacts {
  // No leaf has NICs of hosts in two blocks (or of a host outside any block) and no
  // NVLink domain has hosts in two blocks: GPUs in different blocks meet at the spine or
  // above, or not at all.
  bool blocks_reach_spine = false;
  // Besides, no tier-2 switch group serves hosts of two pods (or of a host outside any
  // pod): GPUs in different pods meet at the core, or not at all.
  bool pods_reach_core = false;
  // Besides, the NICs of one index in one block all land on one leaf: GPU j of two hosts
  // of a block meet at that leaf.
  bool one_leaf_per_rail_per_block = false;
  // Besides, the leaves the NICs of one index reach in one pod (the whole fabric where
  // hosts have no pod) share a tier-2 group: two such NICs in different blocks of a pod
  // meet at the spine, exactly.
  bool index_spine_per_pod = false;
};
ClimbFacts ClimbFactsOf(const TierIndex& tiers);

struct CandidateSketch {
  TrafficReport traffic;
  PlanFootprint footprint;
};

// Sketches candidates of one placement request. Preconditions: `ctx` outlives the
// sketcher; node hosts are hosts of ctx.fabric with ctx.job.gpus_per_node free GPUs,
// as the engine takes them (MapRanks: node k holds ranks [k*g, (k+1)*g)).
class CandidateSketcher {
 public:
  // `climb`: ClimbFactsOf `tiers`, the context's fabric's index; `routing`: the request's.
  CandidateSketcher(const PlacementContext& ctx, const HealthView& health, const TierIndex& tiers,
                    ClimbFacts climb, RoutingOptions routing);

  CandidateSketch Sketch(std::span<const HostId> node_hosts) const;

 private:
  // Distinct blocks per group of a node-aligned dimension, summed into `spread`.
  void SpreadOf(Dim dim, std::span<const int32_t> node_block, GroupSpread& spread) const;
  // The bytes crossing blocks, by the tier they climb to, as the walk adds them; false
  // when a pair's tier is not known from its blocks and pods (then `traffic` is as it was).
  bool ExactSplit(std::span<const HostId> node_hosts, TrafficReport& traffic) const;
  // True when LeafUp can be exact (see above) for jobs of this request.
  bool LeafUpKnowable() const;
  // The walk's bytes up per leaf (up to the rounding of adding per block), from the node
  // slots: each node's directed crossing pairs of every dimension times its pair bytes,
  // sent from each of its NICs' leaves, as NetworkTally::leaf_up_sparse. Empty when a
  // node's host is not aligned and wholly taken, or outside any block.
  std::vector<std::pair<SwitchId, double>> LeafUp(std::span<const HostId> node_hosts) const;

  const PlacementContext& ctx_;
  const HealthView& health_;
  const TierIndex& tiers_;
  const ClimbFacts climb_;
  const bool leaf_up_knowable_;
  // Every crossing pair joins NICs of one index: rail-local forwarding sends through the
  // sender's NIC of the receiver's index, and without it no snake order swaps GPUs.
  const bool same_index_pairs_;
  const NodeGraph graph_;
  // Scratch, sized once: the stamps of the blocks seen by the current group.
  mutable std::vector<int32_t> block_stamp_;
  mutable std::vector<int32_t> node_block_, node_pod_;
  mutable std::vector<int32_t> gpus_in_block_;
  mutable std::vector<uint8_t> pod_seen_;
  // LeafUp's per block of the candidate: the bytes its GPUs send up, one pattern's
  // crossing edge ends, and one of its hosts (-1 between calls); and those blocks.
  mutable std::vector<double> block_sent_;
  mutable std::vector<int64_t> block_edges_;
  mutable std::vector<HostId> block_host_;
  mutable std::vector<int32_t> blocks_sending_;
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_PLACEMENT_CANDIDATE_SKETCH_H_
