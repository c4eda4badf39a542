// Where a mapped job's bytes go: per tier, per parallel dimension, the hottest leaf
// uplink, where they enter and leave the switch tiers (for bytes per link), and how far
// each group spreads. Walks only the pairs that communicate (ring
// successors, adjacent stages, all-to-all peers), so the cost is O(ranks * ep) rather than
// O(ranks^2).
//
//   TrafficReport r = EvaluateTraffic(layout, traffic, slots, index.Attach(slots), router,
//                                     job.gpus_per_node);
//   double spine = r.spine_bytes();
#ifndef TOPOPLACE_SCHEDULER_TRAFFIC_TRAFFIC_REPORT_H_
#define TOPOPLACE_SCHEDULER_TRAFFIC_TRAFFIC_REPORT_H_

#include <array>
#include <span>
#include <utility>
#include <vector>

#include "scheduler/mapping/rank_layout.h"
#include "scheduler/mapping/rank_map.h"
#include "scheduler/traffic/routing.h"
#include "scheduler/traffic/traffic_model.h"

namespace topoplace::sched {

inline constexpr int kNumTiers = 4;  // nvlink, leaf, spine, core

// How many distinct leaves/blocks/pods the groups of one dimension touch.
struct GroupSpread {
  int groups = 0;
  double mean_leaves = 0, mean_blocks = 0, mean_pods = 0;
  int max_leaves = 0, max_blocks = 0, max_pods = 0;
};

// Where a plan's network bytes enter and leave the switch tiers; LinkLoads
// (link_loads.h) turns this into bytes per link. Per iteration, from the pairs that use
// the network. Only leaf_up is always filled; the rest when EvaluateTraffic is asked to
// (candidates are evaluated without it: it walks every pair and writes more per pair).
struct NetworkTally {
  // Per rank: bytes its own NIC sends into and receives from the network.
  struct RankBytes {
    double sent, received;
  };
  std::vector<RankBytes> rank;
  // With rail-local forwarding: bytes sent through a NIC of the sender's host other than
  // its own (after the NVLink hop), as (NIC, bytes) in pair order.
  std::vector<std::pair<NicId, double>> forwarded_sent;
  // Per switch id (leaves only): bytes leaving the leaf upwards and arriving from above,
  // and the part of each that travels beyond the spine (core).
  std::vector<double> leaf_up, leaf_down, leaf_core_up, leaf_core_down;
  // leaf_up's non-zero entries as (leaf, bytes), each leaf once, in no particular order:
  // what the candidate sketch gives instead of leaf_up (a job's bytes leave a few dozen of
  // a fabric's thousands of switches). A reader takes both (one of them is empty).
  std::vector<std::pair<SwitchId, double>> leaf_up_sparse;
  // Every directed pair whose bytes climb above its leaf, in pair order: the leaf it leaves,
  // the leaf it arrives at (-1 where there is none), whether it crosses the core, and its
  // bytes. LinkLoads hashes each onto one path when ECMP is per-flow (link_loads.h); only
  // filled when EvaluateTraffic is asked for it (tally_flows).
  struct Flow {
    SwitchId up_leaf, down_leaf;
    bool core;
    double bytes;
  };
  std::vector<Flow> flows;
};

struct TrafficReport {
  // Bytes per iteration by highest tier crossed; index = static_cast<int>(Tier).
  std::array<double, kNumTiers> tier_bytes{};
  // The same split per parallel dimension.
  std::array<std::array<double, kNumTiers>, kNumDims> dim_tier_bytes{};
  // Bytes between GPUs that have no network path (e.g. cross-rail on rail planes).
  double unreachable_bytes = 0;
  // Network bytes whose two GPUs sit on different rails.
  double cross_rail_bytes = 0;
  // Largest number of bytes leaving any single leaf upwards.
  double max_leaf_uplink_bytes = 0;
  // Most switches any communicating pair crosses (0 if all traffic is on NVLink).
  int max_hops = 0;
  std::array<GroupSpread, kNumDims> spread{};
  NetworkTally network;

  // Bytes that climb to the spine or above.
  double spine_bytes() const {
    return tier_bytes[static_cast<int>(Tier::kSpine)] + tier_bytes[static_cast<int>(Tier::kCore)];
  }
  // Bytes that use the network at all.
  double network_bytes() const { return tier_bytes[static_cast<int>(Tier::kLeaf)] + spine_bytes(); }
};

// Classifies every communicating pair of the job. `gpus_per_node` > 0 promises that ranks
// [k*g, (k+1)*g) run on one host's first g free GPUs in local order (as MapRanks lays them
// out); dimensions whose groups then fit inside one node are booked to NVLink
// arithmetically instead of pair by pair, and their groups count as touching one leaf,
// block and pod. Preconditions: slots.size() == layout.world_size(); every slot names a
// host of the router's fabric; attachments == router.index().Attach(slots). With
// `tally_network` the whole NetworkTally is filled, flows only with `tally_flows` too.
TrafficReport EvaluateTraffic(const RankLayout& layout, const TrafficModel& traffic,
                              std::span<const RankSlot> slots,
                              std::span<const Attachment> attachments, const Router& router,
                              int gpus_per_node, bool tally_network = false,
                              bool tally_flows = false);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_TRAFFIC_TRAFFIC_REPORT_H_
