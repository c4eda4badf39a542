#include "api/server/console/change_feed.h"

namespace topoplace::server {

uint64_t ChangeFeed::Publish(absl::string_view topic) {
  absl::MutexLock lock(&mu_);
  kept_.push_back({++last_, std::string(topic)});
  if (kept_.size() > kKept) kept_.pop_front();
  return last_;
}

uint64_t ChangeFeed::last() const {
  absl::MutexLock lock(&mu_);
  return last_;
}

std::vector<ChangeFeed::Change> ChangeFeed::WaitAfter(uint64_t after, absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  auto ready = [this, after]()
                   ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return closed_ || last_ > after; };
  mu_.AwaitWithTimeout(absl::Condition(&ready), timeout);
  if (closed_ || last_ <= after) return {};
  if (kept_.empty() || kept_.front().seq > after + 1) {
    return {{last_, std::string(kResync)}};
  }
  std::vector<Change> out;
  for (const Change& c : kept_) {
    if (c.seq > after) out.push_back(c);
  }
  return out;
}

bool ChangeFeed::closed() const {
  absl::MutexLock lock(&mu_);
  return closed_;
}

void ChangeFeed::Close() {
  absl::MutexLock lock(&mu_);
  closed_ = true;
}

}  // namespace topoplace::server
