#include "scheduler/traffic/traffic_report.h"

#include <algorithm>
#include <vector>

namespace topoplace::sched {
namespace {

// Books pair after pair and counts group spread; keeps the scratch arrays of one
// evaluation. Reads only the router's flat index in the per-pair path.
class Evaluator {
 public:
  Evaluator(std::span<const RankSlot> slots, const Router& router, TrafficReport& report)
      : slots_(slots),
        router_(router),
        index_(router.index()),
        report_(report),
        leaf_up_(router.fabric().switches().size(), 0.0),
        leaf_stamp_(router.fabric().switches().size(), -1),
        block_stamp_(router.fabric().blocks().size(), -1),
        pod_stamp_(router.fabric().pods().size(), -1) {}

  // Walks every group of `dim` once: books its pairs (if `bytes` > 0) and its spread.
  void Dimension(const RankLayout& layout, Dim dim, double bytes) {
    const int size = layout.size(dim);
    const int stride = layout.stride(dim);
    const int window = stride * size;
    const Pattern pattern = PatternOf(dim);
    std::array<double, kNumTiers>& dim_bytes = report_.dim_tier_bytes[static_cast<int>(dim)];
    GroupSpread& spread = report_.spread[static_cast<int>(dim)];
    double leaves = 0, blocks = 0, pods = 0;
    for (int hi = 0; hi < layout.world_size(); hi += window) {
      for (int lo = 0; lo < stride; ++lo) {
        const int base = hi + lo;
        CountSpread(base, stride, size, spread, leaves, blocks, pods);
        if (bytes <= 0) continue;
        for (int i = 0; i < size; ++i) {
          const int r = base + i * stride;
          switch (pattern) {
            case Pattern::kRing:
              Add(dim_bytes, r, base + ((i + 1) % size) * stride, bytes);
              break;
            case Pattern::kChain:
              if (i + 1 < size) {
                Add(dim_bytes, r, r + stride, bytes);
                Add(dim_bytes, r + stride, r, bytes);
              }
              break;
            case Pattern::kAllToAll:
              for (int j = 0; j < size; ++j) {
                if (j != i) Add(dim_bytes, r, base + j * stride, bytes);
              }
              break;
          }
        }
      }
    }
    if (spread.groups > 0) {
      spread.mean_leaves = leaves / spread.groups;
      spread.mean_blocks = blocks / spread.groups;
      spread.mean_pods = pods / spread.groups;
    }
  }

  void Finish() {
    for (const std::array<double, kNumTiers>& dim : report_.dim_tier_bytes) {
      for (int t = 0; t < kNumTiers; ++t) report_.tier_bytes[t] += dim[t];
    }
    report_.max_hops = max_tier_ == Tier::kNvlink ? 0 : SwitchHops(max_tier_);
    for (double up : leaf_up_) {
      report_.max_leaf_uplink_bytes = std::max(report_.max_leaf_uplink_bytes, up);
    }
  }

 private:
  void Add(std::array<double, kNumTiers>& dim_bytes, int from, int to, double bytes) {
    const RankSlot& a = slots_[from];
    const RankSlot& b = slots_[to];
    const Tier tier = router_.Classify(a, b);
    if (tier == Tier::kUnreachable) {
      report_.unreachable_bytes += bytes;
      return;
    }
    dim_bytes[static_cast<int>(tier)] += bytes;  // tier_bytes are summed in Finish
    if (tier == Tier::kNvlink) return;
    max_tier_ = std::max(max_tier_, tier);
    if (index_.nic_rail(a.nic) != index_.nic_rail(b.nic)) report_.cross_rail_bytes += bytes;
    if (tier >= Tier::kSpine) {
      const SwitchId leaf = index_.nic_leaf(router_.SendingNic(a, b));
      if (leaf >= 0) leaf_up_[leaf] += bytes;
    }
  }

  // Distinct leaves/blocks/pods of one group, with stamp arrays instead of sets: an entry
  // equal to the current group id means "already counted for this group".
  void CountSpread(int base, int stride, int size, GroupSpread& spread, double& leaves,
                   double& blocks, double& pods) {
    const int group = next_group_++;
    int nl = 0, nb = 0, np = 0;
    for (int i = 0; i < size; ++i) {
      const RankSlot& slot = slots_[base + i * stride];
      nl += Stamp(leaf_stamp_, slot.nic >= 0 ? index_.nic_leaf(slot.nic) : -1, group);
      nb += Stamp(block_stamp_, index_.host_block(slot.host), group);
      np += Stamp(pod_stamp_, index_.host_pod(slot.host), group);
    }
    ++spread.groups;
    leaves += nl;
    blocks += nb;
    pods += np;
    spread.max_leaves = std::max(spread.max_leaves, nl);
    spread.max_blocks = std::max(spread.max_blocks, nb);
    spread.max_pods = std::max(spread.max_pods, np);
  }

  static int Stamp(std::vector<int>& stamps, int32_t index, int group) {
    if (index < 0 || stamps[index] == group) return 0;
    stamps[index] = group;
    return 1;
  }

  std::span<const RankSlot> slots_;
  const Router& router_;
  const TierIndex& index_;
  TrafficReport& report_;
  std::vector<double> leaf_up_;
  std::vector<int> leaf_stamp_, block_stamp_, pod_stamp_;
  int next_group_ = 0;
  Tier max_tier_ = Tier::kNvlink;  // highest reachable tier any pair used
};

// Number of directed communicating pairs of dimension d over the whole job.
double PairCount(const RankLayout& layout, Dim d) {
  const double n = layout.world_size();
  const double size = layout.size(d);
  switch (PatternOf(d)) {
    case Pattern::kRing: return n;
    case Pattern::kChain: return 2 * n * (size - 1) / size;
    case Pattern::kAllToAll: return n * (size - 1);
  }
  return 0;
}

}  // namespace

TrafficReport EvaluateTraffic(const RankLayout& layout, const TrafficModel& traffic,
                              std::span<const RankSlot> slots, const Router& router,
                              int gpus_per_node) {
  TrafficReport report;
  Evaluator eval(slots, router, report);
  for (Dim dim : kAllDims) {
    const int size = layout.size(dim);
    if (size <= 1) continue;
    const double bytes = traffic.pair(dim);
    const int window = layout.stride(dim) * size;  // ranks one group's members span
    if (gpus_per_node > 0 && gpus_per_node % window == 0) {
      // Every group sits inside one node: all its bytes are NVLink bytes.
      const double total = bytes * PairCount(layout, dim);
      report.dim_tier_bytes[static_cast<int>(dim)][static_cast<int>(Tier::kNvlink)] += total;
      report.spread[static_cast<int>(dim)] =
          GroupSpread{layout.world_size() / size, 1, 1, 1, 1, 1, 1};
      continue;
    }
    eval.Dimension(layout, dim, bytes);
  }
  eval.Finish();
  return report;
}

}  // namespace topoplace::sched
