#include "scheduler/policies/fragment_yield.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "scheduler/framework/nvlink_domains.h"

namespace topoplace::sched {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// When host h is expected to be free for a job: the outlook's time, except that a host
// free now that this job may not use (down, or without the GPUs it needs) is not expected
// to be of use at all.
double FreeIn(const PlacementContext& ctx, HostId h) {
  const double t = ctx.outlook->host_free_in_s[h];
  return t == 0 && !ctx.inventory.eligible(h) ? kNever : t;
}

absl::InlinedVector<int32_t, 16> DomainsOf(const Fabric& fabric, const std::vector<HostId>& hosts) {
  absl::InlinedVector<int32_t, 16> out;
  for (HostId h : hosts) {
    const int32_t d = fabric.hosts()[h].nvlink_domain_id;
    if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
  }
  return out;
}

// A waiting job's expected wait for `need` hosts of one domain, none of them `taken`:
// per domain the need-th soonest of its other hosts' times, the soonest of those. Each
// `need` is worked out once (hundreds of waiting jobs ask for a few sizes).
class OthersWait {
 public:
  OthersWait(const PlacementContext& ctx, const absl::flat_hash_set<HostId>& taken, int largest)
      : memo_(static_cast<size_t>(largest) + 1, -1) {
    for (const std::vector<HostId>& domain : ctx.fabric.nvlink_domains()) {
      std::vector<double>& times = sorted_.emplace_back();
      for (HostId h : domain) {
        if (!taken.contains(h)) times.push_back(FreeIn(ctx, h));
      }
      std::sort(times.begin(), times.end());
    }
  }
  // Precondition: 1 <= need <= largest.
  double For(int need) {
    double& best = memo_[static_cast<size_t>(need)];
    if (best >= 0) return best;
    best = kNever;
    for (const std::vector<double>& times : sorted_) {
      if (static_cast<int>(times.size()) >= need) best = std::min(best, times[need - 1]);
    }
    return best;
  }

 private:
  std::vector<std::vector<double>> sorted_;
  std::vector<double> memo_;  // per need, its wait; -1 until worked out
};

}  // namespace

std::optional<Yield> YieldOf(const PlacementContext& ctx, const Candidate& c) {
  if (ctx.outlook == nullptr || !ctx.outlook->known() || ctx.job.mode != ConstraintMode::kHard ||
      !ctx.inventory.nvlink_level()) {
    return std::nullopt;
  }
  const int largest = LargestNvlinkDomain(ctx.fabric);
  if (ctx.nodes <= largest) return std::nullopt;
  const int needed = (ctx.nodes + largest - 1) / largest;
  const absl::InlinedVector<int32_t, 16> used = DomainsOf(ctx.fabric, c.node_hosts);
  if (static_cast<int>(used.size()) <= needed) return std::nullopt;  // as few as can be
  // The free hosts of the partly used domains it takes from: what waiting jobs could use.
  absl::InlinedVector<int, 16> room;
  for (int32_t d : used) {
    const int free = ctx.inventory.nvlink_free(d);
    if (free < static_cast<int>(ctx.fabric.nvlink_domains()[d].size())) room.push_back(free);
  }
  if (room.empty()) return std::nullopt;
  // Built only once a waiting job fits that room.
  std::optional<OthersWait> others;
  Yield y;
  y.domains = static_cast<int>(room.size());
  int room_left = 0;
  for (int r : room) room_left += r;
  // Waiting jobs in queue order, each into the first of that room it fits (first fit),
  // until the room is used up.
  for (int need : ctx.outlook->waiting_nodes) {
    if (room_left == 0) break;
    if (need > largest) continue;
    const auto fits = std::find_if(room.begin(), room.end(), [&](int r) { return r >= need; });
    if (fits == room.end()) continue;
    *fits -= need;
    room_left -= need;
    ++y.jobs;
    if (!others) {
      others.emplace(ctx, absl::flat_hash_set<HostId>(c.node_hosts.begin(), c.node_hosts.end()),
                     largest);
    }
    y.their_wait_s += others->For(need);
  }
  if (y.jobs == 0) return std::nullopt;
  y.own_wait_s = WholeDomainsFreeIn(ctx.fabric, ctx.inventory, *ctx.outlook, needed);
  if (!(y.their_wait_s > y.own_wait_s)) return std::nullopt;
  return y;
}

absl::StatusOr<std::vector<Candidate>> LeaveFragmentsToWaitingJobs(const PlacementContext& ctx,
                                                                   std::vector<Candidate> out) {
  std::optional<Yield> first;
  std::erase_if(out, [&](const Candidate& c) {
    std::optional<Yield> y = YieldOf(ctx, c);
    if (y && !first) first = y;
    return y.has_value();
  });
  if (!out.empty()) return out;
  const int largest = LargestNvlinkDomain(ctx.fabric);
  return absl::ResourceExhaustedError(absl::StrFormat(
      "the job needs %d whole NVLink domains and would spread over more, taking the free "
      "hosts of %d partly used ones that %d waiting jobs could start in now (their expected "
      "waits without them add up to %.1f h); it waits for whole domains, expected in %.1f h "
      "(mode=soft, or max_wait once it has waited that long, places it now)",
      (ctx.nodes + largest - 1) / largest, first->domains, first->jobs, first->their_wait_s / 3600,
      first->own_wait_s / 3600));
}

}  // namespace topoplace::sched
