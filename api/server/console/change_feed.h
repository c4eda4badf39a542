// The daemon's change stream for readers that follow it live (the web console's
// server-sent events): every ledger change and every link-health change is published as a
// numbered change naming its topic ("allocations" or "health"); a reader waits for
// changes after the last number it saw.
//
//   ChangeFeed feed;
//   feed.Publish(ChangeFeed::kAllocations);        // writer side
//   uint64_t seen = feed.last();                   // reader side
//   for (const auto& c : feed.WaitAfter(seen, absl::Seconds(15))) seen = c.seq;
//
// Only the newest kKept changes are kept: a reader that fell further behind gets one change
// of topic kResync, meaning "read everything again". Thread-safe.
#ifndef TOPOPLACE_API_SERVER_CONSOLE_CHANGE_FEED_H_
#define TOPOPLACE_API_SERVER_CONSOLE_CHANGE_FEED_H_

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace topoplace::server {

class ChangeFeed {
 public:
  static constexpr absl::string_view kAllocations = "allocations";
  static constexpr absl::string_view kHealth = "health";
  static constexpr absl::string_view kResync = "resync";
  static constexpr size_t kKept = 256;

  struct Change {
    uint64_t seq = 0;  // 1, 2, ... in publication order
    std::string topic;
  };

  // Appends a change and wakes every waiting reader. Returns its number.
  uint64_t Publish(absl::string_view topic) ABSL_LOCKS_EXCLUDED(mu_);
  // The number of the newest change; 0 before the first.
  uint64_t last() const ABSL_LOCKS_EXCLUDED(mu_);
  // The changes numbered above `after`, oldest first, waiting up to `timeout` for one when
  // there is none yet. Empty on timeout or once Close() was called.
  std::vector<Change> WaitAfter(uint64_t after, absl::Duration timeout) ABSL_LOCKS_EXCLUDED(mu_);
  // Wakes every reader for good (the daemon is stopping).
  void Close() ABSL_LOCKS_EXCLUDED(mu_);
  bool closed() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  mutable absl::Mutex mu_;
  std::deque<Change> kept_ ABSL_GUARDED_BY(mu_);
  uint64_t last_ ABSL_GUARDED_BY(mu_) = 0;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_CONSOLE_CHANGE_FEED_H_
