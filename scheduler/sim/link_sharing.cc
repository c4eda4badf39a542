#include "scheduler/sim/link_sharing.h"

#include <algorithm>
#include <limits>

namespace topoplace::sched::sim {

LinkSharing::LinkSharing(std::vector<double> capacity) : capacity_(std::move(capacity)) {}

void LinkSharing::Set(JobKey job, std::vector<ResourceBytes> demand) {
  std::erase_if(demand, [](const ResourceBytes& d) { return !(d.bytes > 0); });
  double slowest = 0;
  for (const ResourceBytes& d : demand) {
    slowest = std::max(slowest, d.bytes / capacity_[static_cast<size_t>(d.resource)]);
  }
  jobs_[job] = Job{std::move(demand), slowest > 0 ? 1 / slowest : 0};
}

void LinkSharing::Remove(JobKey job) { jobs_.erase(job); }

double LinkSharing::AloneSeconds(JobKey job) const {
  auto it = jobs_.find(job);
  return it == jobs_.end() || it->second.alone_rate == 0 ? 0 : 1 / it->second.alone_rate;
}

absl::flat_hash_map<LinkSharing::JobKey, double> LinkSharing::Fractions() const {
  absl::flat_hash_map<JobKey, double> fraction;
  // Per resource: bytes/s that frozen jobs use, and bytes/s per unit of fraction that the
  // jobs still rising would use.
  std::vector<double> frozen_load(capacity_.size(), 0);
  std::vector<double> rising_rate(capacity_.size(), 0);
  std::vector<const std::pair<const JobKey, Job>*> rising;
  for (const auto& entry : jobs_) {
    if (entry.second.alone_rate == 0) {
      fraction[entry.first] = 1;
      continue;
    }
    rising.push_back(&entry);
    for (const ResourceBytes& d : entry.second.demand) {
      rising_rate[static_cast<size_t>(d.resource)] += entry.second.alone_rate * d.bytes;
    }
  }
  while (!rising.empty()) {
    // The common fraction at which the first resource fills (at most 1: nobody runs
    // faster than alone).
    double level = 1;
    for (const auto* entry : rising) {
      for (const ResourceBytes& d : entry->second.demand) {
        const size_t r = static_cast<size_t>(d.resource);
        level = std::min(level, std::max(0.0, capacity_[r] - frozen_load[r]) / rising_rate[r]);
      }
    }
    // Freeze the jobs on every resource that is full at `level` (all of them at 1).
    constexpr double kFull = 1 - 1e-9;
    std::vector<const std::pair<const JobKey, Job>*> still;
    for (const auto* entry : rising) {
      bool on_full = level >= 1;
      for (const ResourceBytes& d : entry->second.demand) {
        const size_t r = static_cast<size_t>(d.resource);
        if (frozen_load[r] + level * rising_rate[r] >= kFull * capacity_[r]) on_full = true;
      }
      if (on_full) {
        fraction[entry->first] = level;
      } else {
        still.push_back(entry);
      }
    }
    for (const auto* entry : rising) {
      if (!fraction.contains(entry->first)) continue;
      for (const ResourceBytes& d : entry->second.demand) {
        const size_t r = static_cast<size_t>(d.resource);
        const double rate = entry->second.alone_rate * d.bytes;
        rising_rate[r] -= rate;
        frozen_load[r] += level * rate;
      }
    }
    rising = std::move(still);
  }
  return fraction;
}

}  // namespace topoplace::sched::sim
