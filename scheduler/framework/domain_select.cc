#include "scheduler/framework/domain_select.h"

#include <algorithm>
#include <numeric>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "scheduler/framework/nvlink_domains.h"

namespace topoplace::sched {

DomainLevel MaxLevelFor(MaxTier tier, const Fabric& fabric) {
  switch (tier) {
    case MaxTier::kNvlink:  // the engine keeps it inside one NVLink domain of the block
    case MaxTier::kLeaf:
    case MaxTier::kBlock:
      return DomainLevel::kBlock;
    case MaxTier::kPod:
      return fabric.pods().size() > 1 ? DomainLevel::kPod : DomainLevel::kCluster;
    case MaxTier::kCluster:
      return DomainLevel::kCluster;
  }
  return DomainLevel::kCluster;
}

std::string DomainName(const Domain& d) {
  switch (d.level) {
    case DomainLevel::kBlock:
      return absl::StrCat("block ", d.id);
    case DomainLevel::kPod:
      return absl::StrCat("pod ", d.id);
    case DomainLevel::kCluster:
      break;
  }
  return "the cluster";
}

std::vector<Domain> FittingDomains(const Inventory& inv, DomainLevel level, int nodes) {
  std::vector<Domain> out;
  const Fabric& fabric = inv.fabric();
  switch (level) {
    case DomainLevel::kBlock:
      for (int32_t b = 0; b < static_cast<int32_t>(fabric.blocks().size()); ++b) {
        if (inv.block_free(b) >= nodes) out.push_back({level, b, inv.block_free(b)});
      }
      break;
    case DomainLevel::kPod:
      if (fabric.pods().size() <= 1) break;
      for (int32_t p = 0; p < static_cast<int32_t>(fabric.pods().size()); ++p) {
        if (inv.pod_free(p) >= nodes) out.push_back({level, p, inv.pod_free(p)});
      }
      break;
    case DomainLevel::kCluster:
      if (inv.total_free() >= nodes) out.push_back({level, 0, inv.total_free()});
      break;
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Domain& a, const Domain& b) { return a.free < b.free; });
  return out;
}

std::vector<int32_t> BlocksOf(const Fabric& fabric, const Domain& domain) {
  switch (domain.level) {
    case DomainLevel::kBlock:
      return {domain.id};
    case DomainLevel::kPod:
      return fabric.pods()[domain.id].blocks;
    case DomainLevel::kCluster: {
      std::vector<int32_t> all(fabric.blocks().size());
      std::iota(all.begin(), all.end(), 0);
      return all;
    }
  }
  return {};
}

namespace {

// The indices of the positive capacities, largest first, ties by index (what the greedy
// walks; nothing at or below zero is ever taken). A counting sort when the largest
// capacity is small next to their number (blocks' free hosts), else a stable sort.
std::vector<int32_t> LargestFirst(std::span<const int> capacity) {
  std::vector<int32_t> order;
  order.reserve(capacity.size());
  int largest = 0;
  for (size_t i = 0; i < capacity.size(); ++i) {
    if (capacity[i] <= 0) continue;
    order.push_back(static_cast<int32_t>(i));
    largest = std::max(largest, capacity[i]);
  }
  constexpr size_t kSmallRange = 64;
  if (static_cast<size_t>(largest) > 2 * order.size() + kSmallRange) {
    std::stable_sort(order.begin(), order.end(),
                     [&](int32_t a, int32_t b) { return capacity[a] > capacity[b]; });
    return order;
  }
  // next[c]: where the next index of capacity c goes; capacities descend.
  std::vector<int32_t> next(largest + 2, 0);
  for (int32_t i : order) ++next[largest - capacity[i] + 1];
  for (size_t c = 1; c < next.size(); ++c) next[c] += next[c - 1];
  std::vector<int32_t> sorted(order.size());
  for (int32_t i : order) sorted[next[largest - capacity[i]]++] = i;
  return sorted;
}

// GreedyBestFit by selection: the largest capacity not chosen yet (lowest index on ties),
// again and again, until one covers the rest; that last piece goes to the smallest
// capacity not chosen that covers it (lowest index on ties). The same takes as walking
// LargestFirst's order, in O(n) per take, into `takes` (empty if the total is short);
// false once more than `max_takes` are needed (the sorted walk is cheaper then).
// Precondition: `takes` is empty.
bool FewTakes(std::span<const int> capacity, int need, size_t max_takes, Takes& takes) {
  // What each domain has left: -1 once taken (or if it was negative), so that neither scan
  // below picks it again. The scans keep their running best without branching on the
  // data (free capacities are scattered; the branches would be mispredicted).
  absl::InlinedVector<int, 64> left(capacity.begin(), capacity.end());
  int top_capacity = 0;
  for (int& c : left) {
    c = std::max(c, -1);
    top_capacity = std::max(top_capacity, c);
  }
  // Each take is at most the largest capacity: too many of them are needed when even
  // `max_takes` of the largest fall short.
  if (static_cast<int64_t>(top_capacity) * static_cast<int64_t>(max_takes) < need) {
    return false;
  }
  int remaining = need;
  while (remaining > 0) {
    if (takes.size() == max_takes) return false;
    int32_t largest = -1;
    int top = 0;
    for (size_t i = 0; i < left.size(); ++i) {
      const bool more = left[i] > top;
      top = more ? left[i] : top;
      largest = more ? static_cast<int32_t>(i) : largest;
    }
    if (largest < 0) {  // the total is short
      takes.clear();
      return true;
    }
    if (top < remaining) {
      left[largest] = -1;
      takes.push_back({largest, top});
      remaining -= top;
      continue;
    }
    int32_t best = largest;
    int fit = top;
    for (size_t i = 0; i < left.size(); ++i) {
      const bool tighter = left[i] >= remaining && left[i] < fit;
      fit = tighter ? left[i] : fit;
      best = tighter ? static_cast<int32_t>(i) : best;
    }
    takes.push_back({best, remaining});
    remaining = 0;
  }
  return true;
}

// Takes beyond which GreedyBestFit sorts instead of selecting.
constexpr size_t kSelectedTakes = 8;

}  // namespace

Takes GreedyBestFit(std::span<const int> capacity, int need) {
  Takes takes;
  if (FewTakes(capacity, need, kSelectedTakes, takes)) return takes;
  takes.clear();
  const std::vector<int32_t> order = LargestFirst(capacity);
  int remaining = need;
  for (size_t i = 0; i < order.size() && remaining > 0; ++i) {
    if (capacity[order[i]] <= 0) break;
    if (capacity[order[i]] >= remaining) {
      // Best fit for the last piece: the smallest not-yet-chosen domain that covers it.
      // Everything after position i is no larger, so scan from the back.
      int32_t best = order[i];
      for (size_t j = order.size(); j-- > i;) {
        if (capacity[order[j]] >= remaining) {
          best = order[j];
          break;
        }
      }
      // Among equal capacities prefer the lowest index, for determinism.
      for (size_t j = i; j < order.size(); ++j) {
        if (capacity[order[j]] == capacity[best] && order[j] < best) best = order[j];
      }
      takes.push_back({best, remaining});
      remaining = 0;
      break;
    }
    takes.push_back({order[i], capacity[order[i]]});
    remaining -= capacity[order[i]];
  }
  if (remaining > 0) return {};
  return takes;
}

void TakeFromBlocksByDomain(const Inventory& inv, std::span<const int32_t> blocks,
                            std::span<const Take> takes, std::vector<HostId>& out) {
  if (!inv.nvlink_level()) return TakeFromBlocks(inv, blocks, takes, out);
  for (const Take& t : takes) {
    const std::vector<int32_t> domains = NvlinkDomainsOf(inv.fabric(), blocks[t.index]);
    std::vector<int> free(domains.size());
    for (size_t i = 0; i < domains.size(); ++i) free[i] = inv.nvlink_free(domains[i]);
    for (const Take& dt : GreedyBestFit(free, t.amount)) {
      inv.TakeFromDomain(domains[dt.index], dt.amount, out);
    }
  }
}

void TakeFromBlocks(const Inventory& inv, std::span<const int32_t> blocks,
                    std::span<const Take> takes, std::vector<HostId>& out) {
  std::vector<uint8_t> taken(inv.fabric().hosts().size(), 0);
  for (const Take& t : takes) inv.TakeHosts(blocks[t.index], t.amount, taken, out);
}

}  // namespace topoplace::sched
