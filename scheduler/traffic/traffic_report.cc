#include "scheduler/traffic/traffic_report.h"

#include <algorithm>
#include <vector>

namespace topoplace::sched {
namespace {

// Accumulates pair after pair; keeps the scratch arrays of one evaluation.
class Accumulator {
 public:
  Accumulator(const Fabric& fabric, std::span<const RankSlot> slots, const Router& router,
              TrafficReport& report)
      : fabric_(fabric),
        slots_(slots),
        router_(router),
        report_(report),
        leaf_up_(fabric.switches().size(), 0.0) {}

  void Add(Dim dim, int from, int to, double bytes) {
    const RankSlot& a = slots_[from];
    const RankSlot& b = slots_[to];
    const Tier tier = router_.Classify(a, b);
    if (tier == Tier::kUnreachable) {
      report_.unreachable_bytes += bytes;
      return;
    }
    const int t = static_cast<int>(tier);
    report_.tier_bytes[t] += bytes;
    report_.dim_tier_bytes[static_cast<int>(dim)][t] += bytes;
    if (tier == Tier::kNvlink) return;
    report_.max_hops = std::max(report_.max_hops, SwitchHops(tier));
    if (fabric_.nics()[a.nic].rail != fabric_.nics()[b.nic].rail) {
      report_.cross_rail_bytes += bytes;
    }
    if (tier >= Tier::kSpine) {
      const SwitchId leaf = fabric_.nics()[router_.SendingNic(a, b)].leaf;
      if (leaf >= 0) leaf_up_[leaf] += bytes;
    }
  }

  void Finish() {
    for (double up : leaf_up_) {
      report_.max_leaf_uplink_bytes = std::max(report_.max_leaf_uplink_bytes, up);
    }
  }

 private:
  const Fabric& fabric_;
  std::span<const RankSlot> slots_;
  const Router& router_;
  TrafficReport& report_;
  std::vector<double> leaf_up_;
};

// Distinct leaves/blocks/pods per group, with stamp arrays instead of sets: an entry
// equal to the current group id means "already counted for this group".
class SpreadCounter {
 public:
  explicit SpreadCounter(const Fabric& fabric)
      : fabric_(fabric),
        leaf_stamp_(fabric.switches().size(), -1),
        block_stamp_(fabric.blocks().size(), -1),
        pod_stamp_(fabric.pods().size(), -1) {}

  GroupSpread Count(const RankLayout& layout, Dim dim, std::span<const RankSlot> slots) {
    GroupSpread spread;
    const int size = layout.size(dim);
    const int stride = layout.stride(dim);
    double leaves = 0, blocks = 0, pods = 0;
    for (int first = 0; first < layout.world_size(); ++first) {
      if (layout.Coord(first, dim) != 0) continue;
      const int group = next_group_++;
      int nl = 0, nb = 0, np = 0;
      for (int i = 0; i < size; ++i) {
        const RankSlot& slot = slots[first + i * stride];
        const Host& host = fabric_.hosts()[slot.host];
        const SwitchId leaf = slot.nic >= 0 ? fabric_.nics()[slot.nic].leaf : -1;
        nl += Stamp(leaf_stamp_, leaf, group);
        nb += Stamp(block_stamp_, host.block, group);
        np += Stamp(pod_stamp_, host.pod, group);
      }
      ++spread.groups;
      leaves += nl;
      blocks += nb;
      pods += np;
      spread.max_leaves = std::max(spread.max_leaves, nl);
      spread.max_blocks = std::max(spread.max_blocks, nb);
      spread.max_pods = std::max(spread.max_pods, np);
    }
    if (spread.groups > 0) {
      spread.mean_leaves = leaves / spread.groups;
      spread.mean_blocks = blocks / spread.groups;
      spread.mean_pods = pods / spread.groups;
    }
    return spread;
  }

 private:
  static int Stamp(std::vector<int>& stamps, int32_t index, int group) {
    if (index < 0 || stamps[index] == group) return 0;
    stamps[index] = group;
    return 1;
  }

  const Fabric& fabric_;
  std::vector<int> leaf_stamp_, block_stamp_, pod_stamp_;
  int next_group_ = 0;
};

}  // namespace

TrafficReport EvaluateTraffic(const Fabric& fabric, const RankLayout& layout,
                              const TrafficModel& traffic, std::span<const RankSlot> slots,
                              const Router& router) {
  TrafficReport report;
  Accumulator acc(fabric, slots, router, report);
  SpreadCounter spread(fabric);
  const int n = layout.world_size();
  for (Dim dim : kAllDims) {
    const int size = layout.size(dim);
    const double bytes = traffic.pair(dim);
    if (size <= 1) continue;
    report.spread[static_cast<int>(dim)] = spread.Count(layout, dim, slots);
    if (bytes <= 0) continue;
    for (int r = 0; r < n; ++r) {
      switch (PatternOf(dim)) {
        case Pattern::kRing:
          acc.Add(dim, r, layout.Neighbor(r, dim), bytes);
          break;
        case Pattern::kChain:
          if (layout.Coord(r, dim) + 1 < size) {
            const int next = layout.Neighbor(r, dim);
            acc.Add(dim, r, next, bytes);
            acc.Add(dim, next, r, bytes);
          }
          break;
        case Pattern::kAllToAll:
          for (int c = 0; c < size; ++c) {
            if (c != layout.Coord(r, dim)) acc.Add(dim, r, layout.WithCoord(r, dim, c), bytes);
          }
          break;
      }
    }
  }
  acc.Finish();
  return report;
}

}  // namespace topoplace::sched
