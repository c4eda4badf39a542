#include "scheduler/sim/link_sharing.h"

#include <algorithm>
#include <limits>

#include "absl/container/flat_hash_set.h"

namespace topoplace::sched::sim {

LinkSharing::LinkSharing(std::vector<double> capacity)
    : nominal_(capacity),
      capacity_(std::move(capacity)),
      users_(capacity_.size()),
      walked_(capacity_.size()) {}

void LinkSharing::SetShare(int32_t resource, double share) {
  const size_t r = static_cast<size_t>(resource);
  capacity_[r] = nominal_[r] * share;
}

void LinkSharing::Set(JobKey job, std::vector<ResourceBytes> demand) {
  Remove(job);
  std::erase_if(demand, [](const ResourceBytes& d) { return !(d.bytes > 0); });
  double slowest = 0;
  for (const ResourceBytes& d : demand) {
    slowest = std::max(slowest, d.bytes / nominal_[static_cast<size_t>(d.resource)]);
    std::vector<JobKey>& users = users_[d.resource];
    if (users.empty() || users.back() != job) users.push_back(job);
  }
  jobs_[job] = Job{std::move(demand), slowest > 0 ? 1 / slowest : 0};
}

void LinkSharing::Remove(JobKey job) {
  auto it = jobs_.find(job);
  if (it == jobs_.end()) return;
  for (const ResourceBytes& d : it->second.demand) {
    std::erase(users_[static_cast<size_t>(d.resource)], job);
  }
  jobs_.erase(it);
}

double LinkSharing::AloneSeconds(JobKey job) const {
  auto it = jobs_.find(job);
  return it == jobs_.end() || it->second.alone_rate == 0 ? 0 : 1 / it->second.alone_rate;
}

std::vector<LinkSharing::JobKey> LinkSharing::Neighbours(JobKey job) const {
  std::vector<JobKey> near;
  auto it = jobs_.find(job);
  if (it == jobs_.end()) return near;
  for (const ResourceBytes& d : it->second.demand) {
    for (JobKey other : users_[static_cast<size_t>(d.resource)]) {
      if (other != job) near.push_back(other);
    }
  }
  std::sort(near.begin(), near.end());
  near.erase(std::unique(near.begin(), near.end()), near.end());
  return near;
}

absl::flat_hash_map<LinkSharing::JobKey, double> LinkSharing::Fractions() const {
  absl::flat_hash_map<JobKey, double> fraction;
  std::vector<const Entry*> rising;
  for (const Entry& entry : jobs_) {
    if (entry.second.alone_rate == 0) {
      fraction[entry.first] = 1;
    } else {
      rising.push_back(&entry);
    }
  }
  Fill(std::move(rising), fraction);
  return fraction;
}

absl::flat_hash_map<LinkSharing::JobKey, double> LinkSharing::FractionsAround(
    const std::vector<JobKey>& jobs) const {
  absl::flat_hash_map<JobKey, double> fraction;
  // Breadth-first over job -> resource -> job, each resource walked once.
  absl::flat_hash_set<JobKey> seen;
  std::vector<const Entry*> group;
  std::vector<JobKey> frontier;
  std::vector<int32_t> walked;
  for (JobKey job : jobs) {
    if (jobs_.contains(job) && seen.insert(job).second) frontier.push_back(job);
  }
  while (!frontier.empty()) {
    const JobKey job = frontier.back();
    frontier.pop_back();
    const Entry& entry = *jobs_.find(job);
    if (entry.second.alone_rate == 0) {
      fraction[job] = 1;
      continue;
    }
    group.push_back(&entry);
    for (const ResourceBytes& d : entry.second.demand) {
      const size_t r = static_cast<size_t>(d.resource);
      if (walked_[r]) continue;
      walked_[r] = true;
      walked.push_back(d.resource);
      for (JobKey other : users_[r]) {
        if (seen.insert(other).second) frontier.push_back(other);
      }
    }
  }
  for (int32_t r : walked) walked_[static_cast<size_t>(r)] = false;
  Fill(std::move(group), fraction);
  return fraction;
}

void LinkSharing::Fill(std::vector<const Entry*> rising,
                       absl::flat_hash_map<JobKey, double>& fraction) const {
  // In key order: the hash map's order varies between processes, and the sums below
  // would then differ in their last bits.
  std::sort(rising.begin(), rising.end(),
            [](const Entry* a, const Entry* b) { return a->first < b->first; });
  const std::vector<const Entry*> group = rising;
  // Per resource: bytes/s that frozen jobs use, and bytes/s per unit of fraction that the
  // jobs still rising would use. Member scratch, all zero between calls: allocating and
  // clearing one entry per cable direction of a 28k-GPU fabric at every job start and end
  // would cost more than the filling itself.
  std::vector<double>& frozen_load = frozen_load_;
  std::vector<double>& rising_rate = rising_rate_;
  frozen_load.resize(capacity_.size(), 0);
  rising_rate.resize(capacity_.size(), 0);
  for (const Entry* entry : rising) {
    for (const ResourceBytes& d : entry->second.demand) {
      rising_rate[static_cast<size_t>(d.resource)] += entry->second.alone_rate * d.bytes;
    }
  }
  while (!rising.empty()) {
    // The common fraction at which the first resource fills (at most 1: nobody runs
    // faster than alone).
    double level = 1;
    for (const Entry* entry : rising) {
      for (const ResourceBytes& d : entry->second.demand) {
        const size_t r = static_cast<size_t>(d.resource);
        level = std::min(level, std::max(0.0, capacity_[r] - frozen_load[r]) / rising_rate[r]);
      }
    }
    // Freeze the jobs on every resource that is full at `level` (all of them at 1).
    constexpr double kFull = 1 - 1e-9;
    std::vector<const Entry*> still, frozen;
    for (const Entry* entry : rising) {
      bool on_full = level >= 1;
      for (const ResourceBytes& d : entry->second.demand) {
        const size_t r = static_cast<size_t>(d.resource);
        if (frozen_load[r] + level * rising_rate[r] >= kFull * capacity_[r]) on_full = true;
      }
      (on_full ? frozen : still).push_back(entry);
    }
    for (const Entry* entry : frozen) {
      fraction[entry->first] = level;
      for (const ResourceBytes& d : entry->second.demand) {
        const size_t r = static_cast<size_t>(d.resource);
        const double rate = entry->second.alone_rate * d.bytes;
        rising_rate[r] -= rate;
        frozen_load[r] += level * rate;
      }
    }
    rising = std::move(still);
  }
  for (const Entry* entry : group) {
    for (const ResourceBytes& d : entry->second.demand) {
      frozen_load[static_cast<size_t>(d.resource)] = 0;
      rising_rate[static_cast<size_t>(d.resource)] = 0;
    }
  }
}

}  // namespace topoplace::sched::sim
