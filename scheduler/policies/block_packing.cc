#include "scheduler/policies/block_packing.h"

#include <algorithm>
#include <numeric>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"

namespace topoplace::sched {
namespace {

// The short lists of one block choice (a few dozen takes) are sorted and regrouped on the
// stack: the multi-block search does it a hundred times or more per placement.
template <typename T>
using ShortList = absl::InlinedVector<T, 32>;

// std::stable_sort, without its temporary buffer for short ranges (insertion sort is
// stable too).
template <typename It, typename Less>
void StableSortShort(It first, It last, Less less) {
  constexpr std::ptrdiff_t kShort = 64;
  if (last - first > kShort) return std::stable_sort(first, last, less);
  for (It i = first; i != last; ++i) {
    auto v = std::move(*i);
    It j = i;
    for (; j != first && less(v, *(j - 1)); --j) *j = std::move(*(j - 1));
    *j = std::move(v);
  }
}

}  // namespace

std::optional<Cut> MakeCut(const PlacementContext& ctx, Dim dim) {
  const RankLayout& layout = ctx.layout;
  const int g = ctx.job.gpus_per_node;
  if (layout.size(dim) <= 1 || layout.stride(dim) % g != 0) return std::nullopt;
  const int step = layout.stride(dim) / g;  // slot k's coordinate is (k / step) % size
  const int size = layout.size(dim);
  Cut cut{absl::StrCat(DimName(dim), "-aligned"), ctx.nodes / size, std::vector<int>(ctx.nodes)};
  // Nodes by coordinate, in node order within one coordinate: coordinate c's slots are
  // the runs [base + c * step, base + (c + 1) * step) of every group of step * size slots.
  int* next = cut.node_order.data();
  for (int c = 0; c < size; ++c) {
    if (step == 1) {  // runs of one slot (a DP-index column): every size-th slot
      for (int k = c; k < ctx.nodes; k += size) *next++ = k;
      continue;
    }
    for (int base = c * step; base < ctx.nodes; base += step * size) {
      const int end = std::min(base + step, ctx.nodes);
      for (int k = base; k < end; ++k) *next++ = k;
    }
  }
  return cut;
}

Cut PlainCut(const PlacementContext& ctx) {
  Cut cut{"node-order", 1, std::vector<int>(ctx.nodes)};
  std::iota(cut.node_order.begin(), cut.node_order.end(), 0);
  return cut;
}

void TrimToUnits(Takes& takes, std::span<const int> cap, int need, int unit) {
  int slack = -need;
  for (Take& t : takes) {
    t.amount = cap[t.index];
    slack += t.amount;
  }
  ShortList<Take*> order;
  for (Take& t : takes) order.push_back(&t);
  StableSortShort(order.begin(), order.end(), [unit](const Take* a, const Take* b) {
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
  StableSortShort(order.begin(), order.end(),
                  [](const Take* a, const Take* b) { return a->amount < b->amount; });
  for (Take* t : order) {
    const int d = std::min(slack, t->amount);
    t->amount -= d;
    slack -= d;
  }
  takes.erase(
      std::remove_if(takes.begin(), takes.end(), [](const Take& t) { return t.amount == 0; }),
      takes.end());
}

void ChainResidues(Takes& takes, int unit) {
  ShortList<Take> ordered, dirty;
  for (const Take& t : takes) (t.amount % unit == 0 ? ordered : dirty).push_back(t);
  // The dirty takes by residue, in take order within a residue (bucket i is
  // dirty[start[i], start[i + 1]), residue residues[i], ascending); next[i]: its first
  // take not yet placed. O(d log d) in the d dirty takes, whatever the unit.
  StableSortShort(dirty.begin(), dirty.end(), [unit](const Take& a, const Take& b) {
    return a.amount % unit < b.amount % unit;
  });
  ShortList<int> residues;
  ShortList<size_t> start;
  for (size_t i = 0; i < dirty.size(); ++i) {
    if (i == 0 || dirty[i].amount % unit != residues.back()) {
      residues.push_back(dirty[i].amount % unit);
      start.push_back(i);
    }
  }
  start.push_back(dirty.size());
  ShortList<size_t> next(start.begin(), start.end() - 1);
  const auto left = [&](size_t i) { return next[i] < start[i + 1]; };
  size_t largest = residues.size();  // one past the largest residue with takes left
  int prefix = 0;
  while (true) {
    while (largest > 0 && !left(largest - 1)) --largest;
    if (largest == 0) break;
    // The first take left of residue `want` closes the open unit; else the largest.
    const int want = (unit - prefix % unit) % unit;
    size_t pick = largest - 1;
    const auto w = std::lower_bound(residues.begin(), residues.end(), want);
    if (want != 0 && w != residues.end() && *w == want && left(w - residues.begin())) {
      pick = w - residues.begin();
    }
    const Take& t = dirty[next[pick]++];
    prefix += t.amount;
    ordered.push_back(t);
  }
  takes.assign(ordered.begin(), ordered.end());
}

bool MultiPod(const Fabric& fabric, const Domain& domain) {
  return domain.level == DomainLevel::kCluster && fabric.pods().size() > 1;
}

std::optional<BlockSelection> SelectBlocks(const PlacementContext& ctx, const Domain& domain,
                                           int granule, bool by_pod) {
  // Free granules of a block, none in a block to avoid.
  const auto free = [&ctx, granule](int32_t b) {
    const bool avoid = !ctx.avoid_blocks.empty() && ctx.avoid_blocks[b] != 0;
    return avoid ? 0 : ctx.inventory.block_free(b) / granule;
  };
  const auto cap_of = [&](std::span<const int32_t> blocks) {
    int cap = 0;
    for (int32_t b : blocks) cap += free(b);
    return cap;
  };
  // The blocks of a chosen group, the best fit of `amount` granules over them.
  const auto pick_of = [&](std::vector<int32_t> blocks, int amount) {
    GroupPick pick;
    pick.blocks = std::move(blocks);
    pick.cap.resize(pick.blocks.size());
    for (size_t j = 0; j < pick.blocks.size(); ++j) pick.cap[j] = free(pick.blocks[j]);
    pick.amount = amount;
    pick.takes = GreedyBestFit(pick.cap, amount);
    return pick;
  };
  const int need = ctx.nodes / granule;
  BlockSelection selection;
  // The groups: the pods when `by_pod` (pods are chosen first, which keeps core crossings
  // few, possibly at the price of more blocks), else the domain's blocks as one.
  if (!by_pod || !MultiPod(ctx.fabric, domain)) {
    // One group: it gives the whole need (its best fit is empty when it cannot).
    GroupPick pick = pick_of(BlocksOf(ctx.fabric, domain), need);
    if (pick.takes.empty()) return std::nullopt;
    selection.push_back(std::move(pick));
    return selection;
  }
  const std::vector<Pod>& pods = ctx.fabric.pods();
  std::vector<int> pod_cap(pods.size(), 0);
  for (size_t i = 0; i < pods.size(); ++i) pod_cap[i] = cap_of(pods[i].blocks);
  const Takes pod_takes = GreedyBestFit(pod_cap, need);
  if (pod_takes.empty()) return std::nullopt;
  for (const Take& pt : pod_takes) selection.push_back(pick_of(pods[pt.index].blocks, pt.amount));
  return selection;
}

namespace {

// `pick`'s takes under `amounts`, into `takes`.
void AmountTakes(const GroupPick& pick, int unit, Amounts amounts, Takes& takes) {
  takes = pick.takes;
  if (amounts == Amounts::kUnitTrimmed && unit > 1) {
    TrimToUnits(takes, pick.cap, pick.amount, unit);
  }
}

void OrderTakes(Takes& takes, int unit, Order order) {
  if (order == Order::kBlockId) {
    std::sort(takes.begin(), takes.end(),
              [](const Take& a, const Take& b) { return a.index < b.index; });
  } else if (order == Order::kResidueChain && unit > 1) {
    ChainResidues(takes, unit);
  }
}

void AppendTakes(const GroupPick& pick, std::span<const Take> takes, int granule,
                 BlockSequence& seq) {
  for (const Take& t : takes) seq.emplace_back(pick.blocks[t.index], t.amount * granule);
}

// True if no block appears twice in `seq` (short: a quadratic check is cheapest).
bool DistinctBlocks(const BlockSequence& seq) {
  for (size_t i = 0; i < seq.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (seq[i].first == seq[j].first) return false;
    }
  }
  return true;
}

// Blocks a selection takes from, an upper bound on any arrangement's length.
size_t TakeCount(const BlockSelection& selection) {
  size_t n = 0;
  for (const GroupPick& pick : selection) n += pick.takes.size();
  return n;
}

}  // namespace

BlockSequence Arrange(const BlockSelection& selection, int granule, int unit, Amounts amounts,
                      Order order) {
  BlockSequence seq;
  seq.reserve(TakeCount(selection));
  Takes takes;
  for (const GroupPick& pick : selection) {
    AmountTakes(pick, unit, amounts, takes);
    OrderTakes(takes, unit, order);
    AppendTakes(pick, takes, granule, seq);
  }
  return seq;
}

std::array<BlockSequence, kOrders.size()> ArrangeEachOrder(const BlockSelection& selection,
                                                           int granule, int unit, Amounts amounts) {
  std::array<BlockSequence, kOrders.size()> seqs;
  for (BlockSequence& seq : seqs) seq.reserve(TakeCount(selection));
  Takes amounted, takes;
  for (const GroupPick& pick : selection) {
    AmountTakes(pick, unit, amounts, amounted);
    for (size_t i = 0; i < kOrders.size(); ++i) {
      takes = amounted;
      OrderTakes(takes, unit, kOrders[i]);
      AppendTakes(pick, takes, granule, seqs[i]);
    }
  }
  return seqs;
}

std::optional<BlockSequence> ChooseBlocks(const PlacementContext& ctx, const Domain& domain,
                                          int granule, int unit, bool by_pod, Amounts amounts,
                                          Order order) {
  const std::optional<BlockSelection> selection = SelectBlocks(ctx, domain, granule, by_pod);
  if (!selection) return std::nullopt;
  return Arrange(*selection, granule, unit, amounts, order);
}

Candidate Materialize(const PlacementContext& ctx, const BlockSequence& seq, const Cut& cut,
                      std::string how) {
  std::vector<HostId> hosts;
  hosts.reserve(ctx.nodes);
  constexpr Inventory::Take kOrder = Inventory::Take::kHealthyFirst;
  if (DistinctBlocks(seq)) {
    // Every block once (what the search builds): no per-host flags to allocate and clear.
    for (const auto& [block, count] : seq) {
      ctx.inventory.TakeFromUntouchedBlock(block, count, hosts, kOrder);
    }
  } else {
    std::vector<uint8_t> taken(ctx.fabric.hosts().size(), 0);
    for (const auto& [block, count] : seq) {
      ctx.inventory.TakeHosts(block, count, taken, hosts, kOrder);
    }
  }
  Candidate c;
  c.node_hosts.assign(ctx.nodes, -1);
  for (int i = 0; i < ctx.nodes; ++i) c.node_hosts[cut.node_order[i]] = hosts[i];
  c.how = std::move(how);
  return c;
}

}  // namespace topoplace::sched
