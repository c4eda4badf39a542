#include "scheduler/sim/link_sharing.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace topoplace::sched::sim {
namespace {

// A resource is full once its load reaches this share of its capacity (the tolerance of
// the floating-point sums).
constexpr double kFull = 1 - 1e-9;
// A resource whose users all at their speed alone load it below this share of its
// capacity is never full (fractions are at most 1): no fraction depends on it. The margin
// is far above the rounding of the sums.
constexpr double kSlack = 1 - 1e-6;
// Margin for rounding between a resource's level in a heap and the test of fullness.
constexpr double kMargin = 1e-12;

// A resource's level in one of Fill's heaps, valid while `version` is the resource's.
struct Level {
  double at = 0;
  int32_t resource = -1;
  uint32_t version = 0;
  bool operator>(const Level& other) const {
    return at != other.at ? at > other.at : resource > other.resource;
  }
};

}  // namespace

LinkSharing::LinkSharing(std::vector<double> capacity)
    : nominal_(capacity),
      capacity_(std::move(capacity)),
      users_(capacity_.size()),
      full_speed_(capacity_.size()),
      binding_(capacity_.size()),
      walked_(capacity_.size()),
      frozen_load_(capacity_.size()),
      rising_rate_(capacity_.size()),
      rising_users_(capacity_.size()),
      version_(capacity_.size()) {}

void LinkSharing::SetShare(int32_t resource, double share) {
  const size_t r = static_cast<size_t>(resource);
  capacity_[r] = nominal_[r] * share;
  Classify(resource, nullptr);
  for (const Use& use : users_[r]) SortByFill(jobs_[static_cast<size_t>(use.slot)]);
}

void LinkSharing::Classify(int32_t resource, const Use* added) {
  const size_t r = static_cast<size_t>(resource);
  const std::vector<Use>& users = users_[r];
  const bool binding = users.size() >= 2 && full_speed_[r] >= kSlack * capacity_[r];
  if (binding != binding_[r]) {
    binding_[r] = binding;
    for (const Use& use : users) binding ? MakeShared(use) : MakeOwn(use);
  } else if (binding && added != nullptr) {
    MakeShared(*added);
  }
}

void LinkSharing::Set(JobKey job, std::vector<ResourceBytes> demand) {
  Remove(job);
  std::erase_if(demand, [](const ResourceBytes& d) { return !(d.bytes > 0); });
  int32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<int32_t>(jobs_.size());
    jobs_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  Job& j = jobs_[static_cast<size_t>(slot)];
  double slowest = 0;
  for (const ResourceBytes& d : demand) {
    slowest = std::max(slowest, d.bytes / nominal_[static_cast<size_t>(d.resource)]);
  }
  j.key = job;
  j.demand = std::move(demand);
  j.alone_rate = slowest > 0 ? 1 / slowest : 0;
  j.shared.clear();
  j.where.assign(j.demand.size(), -1);
  j.repeats = false;
  for (const ResourceBytes& d : j.demand) {
    j.repeats = j.repeats || walked_[static_cast<size_t>(d.resource)];
    walked_[static_cast<size_t>(d.resource)] = true;
  }
  for (const ResourceBytes& d : j.demand) walked_[static_cast<size_t>(d.resource)] = false;
  SortByFill(j);
  const int32_t entries = static_cast<int32_t>(j.demand.size());
  for (int32_t e = 0; e < entries; ++e) {
    const ResourceBytes& d = j.demand[static_cast<size_t>(e)];
    users_[static_cast<size_t>(d.resource)].push_back({slot, e});
    full_speed_[static_cast<size_t>(d.resource)] += j.alone_rate * d.bytes;
  }
  for (int32_t e = 0; e < entries; ++e) {
    const Use added{slot, e};
    Classify(jobs_[static_cast<size_t>(slot)].demand[static_cast<size_t>(e)].resource, &added);
  }
  slot_[job] = slot;
}

void LinkSharing::Remove(JobKey job) {
  auto it = slot_.find(job);
  if (it == slot_.end()) return;
  const int32_t slot = it->second;
  Job& j = jobs_[static_cast<size_t>(slot)];
  for (const ResourceBytes& d : j.demand) {
    std::vector<Use>& users = users_[static_cast<size_t>(d.resource)];
    std::erase_if(users, [slot](const Use& use) { return use.slot == slot; });
    double& full_speed = full_speed_[static_cast<size_t>(d.resource)];
    full_speed = users.empty() ? 0 : full_speed - j.alone_rate * d.bytes;
  }
  for (const ResourceBytes& d : j.demand) Classify(d.resource, nullptr);
  j = Job{};
  free_slots_.push_back(slot);
  slot_.erase(it);
}

double LinkSharing::OwnFill(const Job& j, int32_t e) const {
  // As Fill computes it for a resource whose only user is `j`: nothing frozen on it, and
  // the rate summed from zero.
  const ResourceBytes& d = j.demand[static_cast<size_t>(e)];
  return std::max(0.0, capacity_[static_cast<size_t>(d.resource)] - 0.0) /
         (0.0 + j.alone_rate * d.bytes);
}

void LinkSharing::SortByFill(Job& j) {
  const size_t n = j.demand.size();
  std::vector<double> fill(n);
  j.by_fill.resize(n);
  j.rank.resize(n);
  for (size_t e = 0; e < n; ++e) {
    fill[e] = OwnFill(j, static_cast<int32_t>(e));
    j.by_fill[e] = static_cast<int32_t>(e);
  }
  std::stable_sort(j.by_fill.begin(), j.by_fill.end(),
                   [&fill](int32_t a, int32_t b) { return fill[a] < fill[b]; });
  for (size_t pos = 0; pos < n; ++pos) j.rank[j.by_fill[pos]] = static_cast<int32_t>(pos);
  j.own_head = 0;
  while (j.own_head < n && j.where[j.by_fill[j.own_head]] != -1) ++j.own_head;
}

void LinkSharing::MakeShared(Use use) {
  Job& j = jobs_[static_cast<size_t>(use.slot)];
  int32_t& where = j.where[static_cast<size_t>(use.entry)];
  if (where != -1) return;
  where = static_cast<int32_t>(j.shared.size());
  j.shared.push_back(use.entry);
  if (j.repeats) InEntryOrder(j);
  while (j.own_head < j.by_fill.size() && j.where[j.by_fill[j.own_head]] != -1) ++j.own_head;
}

void LinkSharing::MakeOwn(Use use) {
  Job& j = jobs_[static_cast<size_t>(use.slot)];
  const size_t e = static_cast<size_t>(use.entry);
  const int32_t pos = j.where[e];
  if (pos == -1) return;
  const int32_t last = j.shared.back();
  j.shared[static_cast<size_t>(pos)] = last;
  j.where[static_cast<size_t>(last)] = pos;
  j.shared.pop_back();
  j.where[e] = -1;
  if (j.repeats) InEntryOrder(j);
  j.own_head = std::min(j.own_head, static_cast<size_t>(j.rank[e]));
}

void LinkSharing::InEntryOrder(Job& j) {
  j.shared.clear();
  for (size_t e = 0; e < j.where.size(); ++e) {
    if (j.where[e] == -1) continue;
    j.where[e] = static_cast<int32_t>(j.shared.size());
    j.shared.push_back(static_cast<int32_t>(e));
  }
}

int32_t LinkSharing::FirstOwn(const Job& j) const {
  return j.own_head < j.by_fill.size() ? j.by_fill[j.own_head] : -1;
}

bool LinkSharing::OwnFullAt(const Job& j, double level) const {
  for (size_t pos = j.own_head; pos < j.by_fill.size(); ++pos) {
    const int32_t e = j.by_fill[pos];
    if (j.where[static_cast<size_t>(e)] != -1) continue;
    // In fill order: past this margin (that of Fill) no later entry can be full.
    if (kFull * OwnFill(j, e) > level + kMargin) return false;
    const ResourceBytes& d = j.demand[static_cast<size_t>(e)];
    // Fill's test, with nothing frozen on the resource.
    if (0.0 + level * (0.0 + j.alone_rate * d.bytes) >=
        kFull * capacity_[static_cast<size_t>(d.resource)]) {
      return true;
    }
  }
  return false;
}

std::vector<LinkSharing::JobKey> LinkSharing::Users(int32_t resource) const {
  std::vector<JobKey> keys;
  for (const Use& use : users_[static_cast<size_t>(resource)]) {
    keys.push_back(jobs_[static_cast<size_t>(use.slot)].key);
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

double LinkSharing::AloneSeconds(JobKey job) const {
  auto it = slot_.find(job);
  if (it == slot_.end()) return 0;
  const Job& j = jobs_[static_cast<size_t>(it->second)];
  return j.alone_rate == 0 ? 0 : 1 / j.alone_rate;
}

std::vector<LinkSharing::JobKey> LinkSharing::Neighbours(JobKey job) const {
  std::vector<JobKey> near;
  auto it = slot_.find(job);
  if (it == slot_.end()) return near;
  const Job& j = jobs_[static_cast<size_t>(it->second)];
  for (int32_t e : j.shared) {
    for (const Use& use : users_[static_cast<size_t>(j.demand[static_cast<size_t>(e)].resource)]) {
      if (use.slot != it->second) near.push_back(jobs_[static_cast<size_t>(use.slot)].key);
    }
  }
  std::sort(near.begin(), near.end());
  near.erase(std::unique(near.begin(), near.end()), near.end());
  return near;
}

absl::flat_hash_map<LinkSharing::JobKey, double> LinkSharing::Fractions() const {
  absl::flat_hash_map<JobKey, double> fraction;
  std::vector<int32_t> rising;
  for (size_t slot = 0; slot < jobs_.size(); ++slot) {
    const Job& j = jobs_[slot];
    if (j.key < 0) continue;
    if (j.alone_rate == 0) {
      fraction[j.key] = 1;
    } else {
      rising.push_back(static_cast<int32_t>(slot));
    }
  }
  Fill(std::move(rising), fraction);
  return fraction;
}

absl::flat_hash_map<LinkSharing::JobKey, double> LinkSharing::FractionsAround(
    const std::vector<JobKey>& jobs) const {
  absl::flat_hash_map<JobKey, double> fraction;
  // Breadth-first over job -> resource -> job, each resource walked once.
  std::vector<int32_t> frontier, seen, group, walked;
  auto visit = [&](int32_t slot) {
    const Job& j = jobs_[static_cast<size_t>(slot)];
    if (j.seen) return;
    j.seen = true;
    seen.push_back(slot);
    frontier.push_back(slot);
  };
  for (JobKey job : jobs) {
    auto it = slot_.find(job);
    if (it != slot_.end()) visit(it->second);
  }
  while (!frontier.empty()) {
    const int32_t slot = frontier.back();
    frontier.pop_back();
    const Job& j = jobs_[static_cast<size_t>(slot)];
    if (j.alone_rate == 0) {
      fraction[j.key] = 1;
      continue;
    }
    group.push_back(slot);
    for (int32_t e : j.shared) {
      const int32_t resource = j.demand[static_cast<size_t>(e)].resource;
      const size_t r = static_cast<size_t>(resource);
      if (walked_[r]) continue;
      walked_[r] = true;
      walked.push_back(resource);
      for (const Use& use : users_[r]) visit(use.slot);
    }
  }
  for (int32_t r : walked) walked_[static_cast<size_t>(r)] = false;
  for (int32_t slot : seen) jobs_[static_cast<size_t>(slot)].seen = false;
  Fill(std::move(group), fraction);
  return fraction;
}

// Progressive filling: all rising jobs' fraction grows together; at the level where the
// first resource fills, the rising jobs on every full resource freeze at that level, and
// the rest rise on. Each shared resource's level (where it would fill at the present
// rates) sits in a heap, re-pushed whenever a freeze changes its rates: levels only rise
// as jobs freeze, and stale entries are skipped by version. A job's own resources change
// no one else's level: the heap holds the first of them to fill, once. The arithmetic is
// that of the plain loop over every resource at every level (the same sums in the same
// order, jobs in key order), so the fractions are the same to the last bit.
// Over 80 lines: one filling loop whose heap, versions and frozen sets every step shares;
// it is the shared network's hot loop, and its rework is the simulator issue's (61, point 3).
void LinkSharing::Fill(std::vector<int32_t> group,
                       absl::flat_hash_map<JobKey, double>& fraction) const {
  // In key order: the sums below would otherwise differ in their last bits between runs.
  auto by_key = [this](int32_t a, int32_t b) {
    return jobs_[static_cast<size_t>(a)].key < jobs_[static_cast<size_t>(b)].key;
  };
  std::sort(group.begin(), group.end(), by_key);
  std::vector<int32_t> touched;
  // Per shared resource (resource >= 0) and per job's first own one (resource -1 - slot),
  // the least level at which it counts as full: its level of `freeze`, never above the
  // level at which it fills (`fill`). So the resources that fill first, and every one full
  // at that level, are at the top of one heap.
  std::vector<Level> heap;
  for (int32_t slot : group) {
    const Job& j = jobs_[static_cast<size_t>(slot)];
    j.rising = true;
    for (int32_t e : j.shared) {
      const ResourceBytes& d = j.demand[static_cast<size_t>(e)];
      const size_t r = static_cast<size_t>(d.resource);
      if (rising_users_[r]++ == 0) touched.push_back(d.resource);
      rising_rate_[r] += j.alone_rate * d.bytes;
    }
    if (const int32_t own = FirstOwn(j); own >= 0) {
      heap.push_back({kFull * OwnFill(j, own), -1 - slot, 0});
    }
  }
  auto fill = [&](const Level& e) {
    if (e.resource < 0) {
      const Job& j = jobs_[static_cast<size_t>(-1 - e.resource)];
      return OwnFill(j, FirstOwn(j));
    }
    const size_t r = static_cast<size_t>(e.resource);
    return std::max(0.0, capacity_[r] - frozen_load_[r]) / rising_rate_[r];
  };
  auto entry = [&](int32_t resource) {
    const size_t r = static_cast<size_t>(resource);
    const double at = (kFull * capacity_[r] - frozen_load_[r]) / rising_rate_[r];
    return Level{std::isnan(at) ? -std::numeric_limits<double>::infinity() : at, resource,
                 ++version_[r]};
  };
  auto valid = [&](const Level& e) {
    if (e.resource < 0) return jobs_[static_cast<size_t>(-1 - e.resource)].rising;
    const size_t r = static_cast<size_t>(e.resource);
    return e.version == version_[r] && rising_users_[r] > 0;
  };
  auto freeze = [&](std::vector<int32_t>& frozen, int32_t slot) {
    const Job& j = jobs_[static_cast<size_t>(slot)];
    if (!j.rising) return;
    j.rising = false;
    frozen.push_back(slot);
  };
  for (int32_t r : touched) heap.push_back(entry(r));
  const auto later = std::greater<Level>();
  std::make_heap(heap.begin(), heap.end(), later);
  auto push = [&](const Level& e) {
    heap.push_back(e);
    std::push_heap(heap.begin(), heap.end(), later);
  };
  size_t rising = group.size();
  std::vector<int32_t> frozen, changed;
  std::vector<Level> candidates;
  while (rising > 0) {
    // The common fraction at which the first resource fills (at most 1: nobody runs
    // faster than alone), and every resource that may be full there.
    double level = 1;
    while (!heap.empty() && heap.front().at <= level + kMargin) {
      const Level e = heap.front();
      std::pop_heap(heap.begin(), heap.end(), later);
      heap.pop_back();
      if (!valid(e)) continue;
      candidates.push_back(e);
      level = std::min(level, fill(e));
    }
    // Freeze the rising jobs on every resource that is full at `level` (all of them at 1).
    for (const Level& e : candidates) {
      if (level >= 1) break;
      if (e.resource < 0) {
        const int32_t slot = -1 - e.resource;
        if (OwnFullAt(jobs_[static_cast<size_t>(slot)], level)) freeze(frozen, slot);
        continue;
      }
      const size_t r = static_cast<size_t>(e.resource);
      if (frozen_load_[r] + level * rising_rate_[r] >= kFull * capacity_[r]) {
        for (const Use& use : users_[r]) freeze(frozen, use.slot);
      }
    }
    // At 1 everybody stops; below it the resource that set `level` is full at it, so
    // `frozen` is empty only if rounding defeated that: freeze the rest then, lest the
    // loop never end.
    if (level >= 1 || frozen.empty()) {
      for (int32_t slot : group) freeze(frozen, slot);
    }
    std::sort(frozen.begin(), frozen.end(), by_key);
    for (int32_t slot : frozen) {
      const Job& j = jobs_[static_cast<size_t>(slot)];
      fraction[j.key] = level;
      for (int32_t e : j.shared) {
        const ResourceBytes& d = j.demand[static_cast<size_t>(e)];
        const size_t r = static_cast<size_t>(d.resource);
        const double rate = j.alone_rate * d.bytes;
        rising_rate_[r] -= rate;
        frozen_load_[r] += level * rate;
        --rising_users_[r];
        if (!walked_[r]) {
          walked_[r] = true;
          changed.push_back(d.resource);
        }
      }
    }
    // Candidates not full keep their entries; the changed resources get new ones.
    for (const Level& e : candidates) {
      if (valid(e)) push(e);
    }
    for (int32_t r : changed) {
      walked_[static_cast<size_t>(r)] = false;
      if (rising_users_[static_cast<size_t>(r)] > 0) push(entry(r));
    }
    rising -= frozen.size();
    frozen.clear();
    changed.clear();
    candidates.clear();
  }
  for (int32_t resource : touched) {
    const size_t r = static_cast<size_t>(resource);
    frozen_load_[r] = 0;
    rising_rate_[r] = 0;
    version_[r] = 0;
  }
}

}  // namespace topoplace::sched::sim
