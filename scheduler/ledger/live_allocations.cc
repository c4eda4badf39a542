#include "scheduler/ledger/live_allocations.h"

#include <utility>

namespace topoplace::ledger {

void LiveAllocations::Add(int64_t n, Allocation a, std::vector<GpuId> gpus) {
  for (GpuId g : gpus) holder_[g] = n;
  held_ += static_cast<int64_t>(gpus.size());
  gpus_of_[n] = std::move(gpus);
  Index(n, a);
  records_.emplace(n, std::move(a));
}

void LiveAllocations::Replace(int64_t n, Allocation a) {
  Allocation& record = records_.at(n);
  Unindex(n, record);
  record = std::move(a);
  Index(n, record);
}

Allocation LiveAllocations::Remove(int64_t n) {
  auto it = records_.find(n);
  Allocation a = std::move(it->second);
  records_.erase(it);
  for (GpuId g : gpus_of_[n]) holder_[g] = 0;
  held_ -= static_cast<int64_t>(gpus_of_[n].size());
  gpus_of_.erase(n);
  Unindex(n, a);
  return a;
}

const Allocation* LiveAllocations::Find(int64_t n) const {
  auto it = records_.find(n);
  return it == records_.end() ? nullptr : &it->second;
}

std::optional<int64_t> LiveAllocations::CommittedTo(const std::string& external_id) const {
  auto it = committed_to_.find(external_id);
  if (it == committed_to_.end()) return std::nullopt;
  return it->second;
}

std::optional<int64_t> LiveAllocations::EarliestExpiredAt(absl::Time now) const {
  if (expiries_.empty() || expiries_.begin()->first > now) return std::nullopt;
  return expiries_.begin()->second;
}

void LiveAllocations::MarkHeld(sched::Occupancy& occupancy) const {
  for (GpuId g = 0; g < static_cast<GpuId>(holder_.size()); ++g) {
    if (holder_[g] != 0) occupancy.Set(g, true);
  }
}

void LiveAllocations::Index(int64_t n, const Allocation& a) {
  if (a.state == AllocationState::kReserved) expiries_.emplace(a.expires_at, n);
  if (a.state == AllocationState::kCommitted) committed_to_[a.external_id] = n;
}

void LiveAllocations::Unindex(int64_t n, const Allocation& a) {
  if (a.state == AllocationState::kReserved) {
    auto [first, last] = expiries_.equal_range(a.expires_at);
    for (auto it = first; it != last; ++it) {
      if (it->second == n) {
        expiries_.erase(it);
        break;
      }
    }
  }
  if (a.state == AllocationState::kCommitted) committed_to_.erase(a.external_id);
}

}  // namespace topoplace::ledger
