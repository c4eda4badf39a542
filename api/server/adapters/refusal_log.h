// The daemon's latest refusals for want of room: what the console's capacity page lists
// beside what is free ("why is this job waiting"). A bounded ring: the newest `capacity`
// refusals are kept, the oldest dropped.
//
//   RefusalLog log(64);
//   log.Add({absl::Now(), "tp=8,pp=4,dp=1,max_tier=block", "block", status.message()});
//   for (const RefusalLog::Entry& e : log.Newest()) ...
//
// Thread-safe.
#ifndef TOPOPLACE_API_SERVER_ADAPTERS_REFUSAL_LOG_H_
#define TOPOPLACE_API_SERVER_ADAPTERS_REFUSAL_LOG_H_

#include <cstddef>
#include <deque>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace topoplace::server {

class RefusalLog {
 public:
  struct Entry {
    absl::Time at;
    std::string job_spec;  // canonical (sched::FormatJobSpec)
    std::string level;     // the level the job was bound to: "block", "pod", "cluster", ...
    std::string message;   // the refusal as the caller read it, with how close it came
  };

  // Precondition: capacity > 0.
  explicit RefusalLog(size_t capacity) : capacity_(capacity) {}

  void Add(Entry entry);
  // The kept refusals, newest first.
  std::vector<Entry> Newest() const;
  // Refusals added since the daemon started, dropped ones included.
  int64_t total() const;

 private:
  const size_t capacity_;
  mutable absl::Mutex mu_;
  std::deque<Entry> entries_ ABSL_GUARDED_BY(mu_);  // oldest first
  int64_t total_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_ADAPTERS_REFUSAL_LOG_H_
