#include "scheduler/traffic/traffic_report.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "scheduler/traffic/repeated_add.h"

namespace topoplace::sched {
namespace {

// Classifies pair after pair and counts group spread; keeps the scratch arrays of one
// evaluation. The per-rank facts a pair needs (its Attachment: switch groups, rail, leaf,
// block, pod, NVLink key) come gathered in one rank-ordered array, so the pair loop reads
// a small contiguous array. Pairs are counted per tier and their bytes booked per dimension at the
// end with AddRepeated, which gives bit for bit the sums of booking them one by one.
class Evaluator {
 public:
  // `gpus_per_node` > 0 promises that ranks [k*g, (k+1)*g) run on one host's first g free
  // GPUs in local order.
  Evaluator(std::span<const RankSlot> slots, std::span<const Attachment> attachments,
            const Router& router, int gpus_per_node, bool tally_network, bool tally_flows,
            TrafficReport& report)
      : slots_(slots),
        facts_(attachments),
        gpus_per_node_(gpus_per_node),
        router_(router),
        index_(router.index()),
        report_(report),
        tally_(report.network),
        full_tally_(tally_network),
        tally_flows_(tally_network && tally_flows),
        leaf_stamp_(router.fabric().switches().size(), -1),
        block_stamp_(router.fabric().blocks().size(), -1),
        pod_stamp_(router.fabric().pods().size(), -1) {
    const size_t switches = router.fabric().switches().size();
    // Raw pointers: the pair loop's stores to doubles then cannot make the compiler reload
    // the vectors' data pointers.
    tally_.leaf_up.assign(switches, 0.0);
    leaf_up_ = tally_.leaf_up.data();
    // Only leaf_up is tallied here: it takes the same bytes from every pair of a dimension,
    // so counting sibling pairs together leaves its sums bit for bit the same.
    lockstep_ = !tally_network && OnAlignedHosts();
    if (!full_tally_) return;
    tally_.rank.assign(slots.size(), {0, 0});
    for (std::vector<double>* v :
         {&tally_.leaf_down, &tally_.leaf_core_up, &tally_.leaf_core_down}) {
      v->assign(switches, 0.0);
    }
    rank_ = tally_.rank.data();
    leaf_down_ = tally_.leaf_down.data();
    core_up_ = tally_.leaf_core_up.data();
    core_down_ = tally_.leaf_core_down.data();
  }

  // Walks every group of `dim` once: books its pairs (if `bytes` > 0) and its spread; then,
  // if `ring_bytes` > 0, the ring `dim` carries beside its own pattern (ring_pair_bytes).
  void Dimension(const RankLayout& layout, Dim dim, double bytes, double ring_bytes) {
    Walk(layout, dim, PatternOf(dim), bytes, /*count_spread=*/true);
    if (ring_bytes > 0) Walk(layout, dim, Pattern::kRing, ring_bytes, /*count_spread=*/false);
  }

  void Walk(const RankLayout& layout, Dim dim, Pattern pattern, double bytes, bool count_spread) {
    Counts counts;
    const bool lockstep = lockstep_ && layout.stride(dim) % gpus_per_node_ == 0;
    if (router_.options().rail_local) {
      lockstep ? Walk<true, true>(layout, dim, pattern, bytes, count_spread, counts)
               : Walk<true, false>(layout, dim, pattern, bytes, count_spread, counts);
    } else {
      lockstep ? Walk<false, true>(layout, dim, pattern, bytes, count_spread, counts)
               : Walk<false, false>(layout, dim, pattern, bytes, count_spread, counts);
    }
    std::array<double, kNumTiers>& dim_bytes = report_.dim_tier_bytes[static_cast<int>(dim)];
    for (int t = 0; t < kNumTiers; ++t) {
      dim_bytes[t] = AddRepeated(dim_bytes[t], bytes, counts.tier[t]);
      if (t > static_cast<int>(Tier::kNvlink) && counts.tier[t] > 0) {
        max_tier_ = std::max(max_tier_, static_cast<Tier>(t));
      }
    }
    report_.unreachable_bytes = AddRepeated(report_.unreachable_bytes, bytes, counts.unreachable);
    report_.cross_rail_bytes = AddRepeated(report_.cross_rail_bytes, bytes, counts.cross_rail);
  }

  void Finish() {
    for (const std::array<double, kNumTiers>& dim : report_.dim_tier_bytes) {
      for (int t = 0; t < kNumTiers; ++t) report_.tier_bytes[t] += dim[t];
    }
    report_.max_hops = max_tier_ == Tier::kNvlink ? 0 : SwitchHops(max_tier_);
    for (double up : tally_.leaf_up) {
      report_.max_leaf_uplink_bytes = std::max(report_.max_leaf_uplink_bytes, up);
    }
  }

 private:
  // Pairs of one dimension by outcome, booked when the dimension is done.
  struct Counts {
    std::array<int64_t, kNumTiers> tier{};
    int64_t unreachable = 0, cross_rail = 0;
  };

  // With kLockstep (every node on all GPUs of an aligned host, TierIndex::aligned_gpus, and
  // a node-aligned stride), groups come in runs of g whose member i sits on one node, on
  // GPU j for the j-th group: their pairs classify alike, so the walk classifies the run's
  // first group and counts each pair g times.
  template <bool kRailLocal, bool kLockstep>
  void Walk(const RankLayout& layout, Dim dim, Pattern pattern, double bytes, bool count_spread,
            Counts& counts) {
    const int size = layout.size(dim);
    const int stride = layout.stride(dim);
    const int window = stride * size;
    GroupSpread& spread = report_.spread[static_cast<int>(dim)];
    double leaves = 0, blocks = 0, pods = 0;
    // With a node-aligned stride, the groups whose first ranks share a node visit the same
    // hosts (member i of each sits on the same node), hence the same blocks and pods: count
    // those once per node and reuse them, in the same order of additions.
    const int g = gpus_per_node_;
    const bool node_aligned = g > 0 && stride % g == 0;
    for (int hi = 0; hi < layout.world_size(); hi += window) {
      for (int lo = 0; lo < stride; lo += kLockstep ? g : 1) {
        const int base = hi + lo;
        if (count_spread) {
          CountSpread(base, stride, size, node_aligned && lo % g != 0, spread, leaves, blocks,
                      pods);
          if constexpr (kLockstep) RepeatSpread(g - 1, spread, leaves, blocks, pods);
        }
        if (bytes <= 0) continue;
        switch (pattern) {
          case Pattern::kRing:
            for (int i = 0; i + 1 < size; ++i) {
              Pair<kRailLocal, kLockstep>(base + i * stride, base + (i + 1) * stride, bytes,
                                          counts);
            }
            Pair<kRailLocal, kLockstep>(base + (size - 1) * stride, base, bytes, counts);
            break;
          case Pattern::kChain:
            for (int i = 0; i + 1 < size; ++i) {
              const int r = base + i * stride;
              if constexpr (kRailLocal) {
                Pair<true, kLockstep>(r, r + stride, bytes, counts);
                Pair<true, kLockstep>(r + stride, r, bytes, counts);
              } else {
                PairBothWays<kLockstep>(r, r + stride, bytes, counts);
              }
            }
            break;
          case Pattern::kAllToAll:
            for (int i = 0; i < size; ++i) {
              for (int j = 0; j < size; ++j) {
                if (j == i) continue;
                Pair<kRailLocal, kLockstep>(base + i * stride, base + j * stride, bytes, counts);
              }
            }
            break;
        }
      }
    }
    if (count_spread && spread.groups > 0) {
      spread.mean_leaves = leaves / spread.groups;
      spread.mean_blocks = blocks / spread.groups;
      spread.mean_pods = pods / spread.groups;
    }
  }

  // The tier of from -> to as Router::Classify gives it, and the NIC that sends.
  template <bool kRailLocal>
  [[gnu::always_inline]] Tier Classify(int from, int to, NicId& via) const {
    const Attachment& a = facts_[from];
    const Attachment& b = facts_[to];
    if (a.nvlink_key == b.nvlink_key) return Tier::kNvlink;
    if constexpr (kRailLocal) {
      via = router_.SendingNic(slots_[from], slots_[to]);
      if (via < 0) return Tier::kUnreachable;
      return TierIndex::Between(index_.nic(via), b);
    } else {
      return TierIndex::Between(a, b);  // the sender's own NIC: `via` is not read
    }
  }

  // Counts one directed pair (with kLockstep, it and its g - 1 siblings on the next GPUs of
  // the same two nodes) and tallies where its bytes cross the tiers, in pair order.
  template <bool kRailLocal, bool kLockstep>
  [[gnu::always_inline]] void Pair(int from, int to, double bytes, Counts& counts) {
    NicId via = -1;
    const Tier tier = Classify<kRailLocal>(from, to, via);
    const int copies = kLockstep ? gpus_per_node_ : 1;
    if (tier == Tier::kUnreachable) {
      counts.unreachable += copies;
      return;
    }
    counts.tier[static_cast<int>(tier)] += copies;
    if (tier == Tier::kNvlink) return;
    if (facts_[from].rail != facts_[to].rail) counts.cross_rail += copies;
    if (full_tally_) {  // never with kLockstep
      if (kRailLocal && via != slots_[from].nic) {
        tally_.forwarded_sent.emplace_back(via, bytes);
      } else {
        rank_[from].sent += bytes;
      }
      rank_[to].received += bytes;
    }
    if (tier >= Tier::kSpine) {
      Climb<kLockstep>(kRailLocal ? index_.nic_leaf(via) : facts_[from].leaf, facts_[to].leaf, tier,
                       bytes);
      // Siblings on aligned hosts each send by their own NIC.
      for (int j = 1; j < copies; ++j) {
        Climb<kLockstep>(facts_[from + j].leaf, facts_[to + j].leaf, tier, bytes);
      }
    }
  }

  // Pair<false>(a, b) then Pair<false>(b, a): each side sends through its own NIC and the
  // tier is symmetric, so the pair is classified once.
  template <bool kLockstep>
  [[gnu::always_inline]] void PairBothWays(int a, int b, double bytes, Counts& counts) {
    NicId via = -1;
    const Tier tier = Classify<false>(a, b, via);
    const int copies = kLockstep ? gpus_per_node_ : 1;
    if (tier == Tier::kUnreachable) {
      counts.unreachable += 2 * copies;
      return;
    }
    counts.tier[static_cast<int>(tier)] += 2 * copies;
    if (tier == Tier::kNvlink) return;
    const Attachment& fa = facts_[a];
    const Attachment& fb = facts_[b];
    if (fa.rail != fb.rail) counts.cross_rail += 2 * copies;
    if (full_tally_) {  // never with kLockstep
      rank_[a].sent += bytes;
      rank_[a].received += bytes;
      rank_[b].sent += bytes;
      rank_[b].received += bytes;
    }
    if (tier >= Tier::kSpine) {
      for (int j = 0; j < copies; ++j) {
        Climb<kLockstep>(facts_[a + j].leaf, facts_[b + j].leaf, tier, bytes);
        Climb<kLockstep>(facts_[b + j].leaf, facts_[a + j].leaf, tier, bytes);
      }
    }
  }

  // Tallies bytes that go up from leaf `up` and come down to leaf `down` through `tier`.
  // kUpOnly: the caller knows there is no full tally (kLockstep), only leaf_up.
  template <bool kUpOnly>
  [[gnu::always_inline]] void Climb(SwitchId up, SwitchId down, Tier tier, double bytes) {
    const bool full = !kUpOnly && full_tally_;
    const bool core = tier == Tier::kCore;
    if (!kUpOnly && tally_flows_) tally_.flows.push_back({up, down, core, bytes});
    if (up >= 0) {
      leaf_up_[up] += bytes;
      if (full && core) core_up_[up] += bytes;
    }
    if (full && down >= 0) {
      leaf_down_[down] += bytes;
      if (core) core_down_[down] += bytes;
    }
  }

  // Distinct leaves/blocks/pods of one group, with stamp arrays instead of sets: an entry
  // equal to the current group id means "already counted for this group". With
  // `same_hosts` the group visits the hosts of the previous one, whose block and pod counts
  // are reused.
  void CountSpread(int base, int stride, int size, bool same_hosts, GroupSpread& spread,
                   double& leaves, double& blocks, double& pods) {
    const int group = next_group_++;
    int nl = 0;
    if (same_hosts) {
      for (int i = 0; i < size; ++i) {
        nl += Stamp(leaf_stamp_, facts_[base + i * stride].leaf, group);
      }
    } else {
      last_blocks_ = last_pods_ = 0;
      for (int i = 0; i < size; ++i) {
        const Attachment& f = facts_[base + i * stride];
        nl += Stamp(leaf_stamp_, f.leaf, group);
        last_blocks_ += Stamp(block_stamp_, f.block, group);
        last_pods_ += Stamp(pod_stamp_, f.pod, group);
      }
    }
    const int nb = last_blocks_, np = last_pods_;
    last_leaves_ = nl;
    ++spread.groups;
    leaves += nl;
    blocks += nb;
    pods += np;
    spread.max_leaves = std::max(spread.max_leaves, nl);
    spread.max_blocks = std::max(spread.max_blocks, nb);
    spread.max_pods = std::max(spread.max_pods, np);
  }

  // Books `copies` more groups with the last group's counts: kLockstep siblings visit the
  // same hosts, and leaves that match the last group's one for one, so as many of each.
  void RepeatSpread(int copies, GroupSpread& spread, double& leaves, double& blocks,
                    double& pods) const {
    for (int c = 0; c < copies; ++c) {
      ++spread.groups;
      leaves += last_leaves_;
      blocks += last_blocks_;
      pods += last_pods_;
    }
  }

  // Whether every node runs on all GPUs of an aligned host (TierIndex::aligned_gpus).
  bool OnAlignedHosts() const {
    const int g = gpus_per_node_;
    if (g <= 0 || slots_.size() % g != 0) return false;
    for (size_t r = 0; r < slots_.size(); r += g) {
      if (index_.aligned_gpus(slots_[r].host) != g) return false;
    }
    return true;
  }

  static int Stamp(std::vector<int>& stamps, int32_t index, int group) {
    if (index < 0 || stamps[index] == group) return 0;
    stamps[index] = group;
    return 1;
  }

  std::span<const RankSlot> slots_;
  std::span<const Attachment> facts_;  // per rank
  const int gpus_per_node_;
  const Router& router_;
  const TierIndex& index_;
  TrafficReport& report_;
  NetworkTally& tally_;
  const bool full_tally_;   // all of NetworkTally, not just leaf_up
  const bool tally_flows_;  // NetworkTally::flows too
  NetworkTally::RankBytes* rank_ = nullptr;
  double *leaf_up_ = nullptr, *leaf_down_ = nullptr, *core_up_ = nullptr, *core_down_ = nullptr;
  std::vector<int> leaf_stamp_, block_stamp_, pod_stamp_;
  int next_group_ = 0;
  int last_blocks_ = 0, last_pods_ = 0;  // distinct blocks and pods of the last host walk
  int last_leaves_ = 0;                  // distinct leaves of the last group
  bool lockstep_ = false;                // see Walk
  Tier max_tier_ = Tier::kNvlink;        // highest reachable tier any pair used
};

// Number of directed communicating pairs of dimension d over the whole job, in `pattern`.
double PairCount(const RankLayout& layout, Dim d, Pattern pattern) {
  const double n = layout.world_size();
  const double size = layout.size(d);
  switch (pattern) {
    case Pattern::kRing:
      return n;
    case Pattern::kChain:
      return 2 * n * (size - 1) / size;
    case Pattern::kAllToAll:
      return n * (size - 1);
  }
  return 0;
}

}  // namespace

TrafficReport EvaluateTraffic(const RankLayout& layout, const TrafficModel& traffic,
                              std::span<const RankSlot> slots,
                              std::span<const Attachment> attachments, const Router& router,
                              int gpus_per_node, bool tally_network, bool tally_flows) {
  TrafficReport report;
  Evaluator eval(slots, attachments, router, gpus_per_node, tally_network, tally_flows, report);
  for (Dim dim : kAllDims) {
    const int size = layout.size(dim);
    if (size <= 1) continue;
    const double bytes = traffic.pair(dim);
    const int window = layout.stride(dim) * size;  // ranks one group's members span
    if (gpus_per_node > 0 && gpus_per_node % window == 0) {
      // Every group sits inside one node: all its bytes are NVLink bytes.
      const double total = bytes * PairCount(layout, dim, PatternOf(dim)) +
                           traffic.ring_pair(dim) * PairCount(layout, dim, Pattern::kRing);
      report.dim_tier_bytes[static_cast<int>(dim)][static_cast<int>(Tier::kNvlink)] += total;
      report.spread[static_cast<int>(dim)] =
          GroupSpread{layout.world_size() / size, 1, 1, 1, 1, 1, 1};
      continue;
    }
    eval.Dimension(layout, dim, bytes, traffic.ring_pair(dim));
  }
  eval.Finish();
  return report;
}

}  // namespace topoplace::sched
