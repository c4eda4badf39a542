// The time source of the ledger (reservation TTLs), behind an interface so that tests can
// move time by hand instead of sleeping.
//
//   FakeClock clock(absl::FromUnixSeconds(1000));
//   clock.Advance(absl::Seconds(31));   // a 30 s reservation is now expired
//
// Both implementations are thread-safe.
#ifndef TOPOPLACE_SCHEDULER_LEDGER_CLOCK_H_
#define TOPOPLACE_SCHEDULER_LEDGER_CLOCK_H_

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace topoplace::ledger {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() const = 0;
};

// Wall-clock time (absl::Now()). The returned reference lives forever.
const Clock& RealClock();

// A clock that only moves when told to.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(absl::Time start) : now_(start) {}
  absl::Time Now() const override {
    absl::MutexLock lock(&mu_);
    return now_;
  }
  void Advance(absl::Duration d) {
    absl::MutexLock lock(&mu_);
    now_ += d;
  }

 private:
  mutable absl::Mutex mu_;
  absl::Time now_ ABSL_GUARDED_BY(mu_);
};

}  // namespace topoplace::ledger

#endif  // TOPOPLACE_SCHEDULER_LEDGER_CLOCK_H_
