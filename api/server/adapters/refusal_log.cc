#include "api/server/adapters/refusal_log.h"

#include <utility>

namespace topoplace::server {

void RefusalLog::Add(Entry entry) {
  absl::MutexLock lock(&mu_);
  entries_.push_back(std::move(entry));
  if (entries_.size() > capacity_) entries_.pop_front();
  ++total_;
}

std::vector<RefusalLog::Entry> RefusalLog::Newest() const {
  absl::MutexLock lock(&mu_);
  return {entries_.rbegin(), entries_.rend()};
}

int64_t RefusalLog::total() const {
  absl::MutexLock lock(&mu_);
  return total_;
}

}  // namespace topoplace::server
