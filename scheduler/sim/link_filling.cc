// LinkSharing's progressive filling (link_sharing.h), apart from the bookkeeping of
// users and levels that feeds it.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "scheduler/sim/link_sharing.h"

namespace topoplace::sched::sim {
namespace {

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
    return std::max(0.0, resources_[r].capacity - frozen_load_[r]) / rising_rate_[r];
  };
  auto entry = [&](int32_t resource) {
    const size_t r = static_cast<size_t>(resource);
    const double at = (kFull * resources_[r].capacity - frozen_load_[r]) / rising_rate_[r];
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
      if (frozen_load_[r] + level * rising_rate_[r] >= kFull * resources_[r].capacity) {
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
