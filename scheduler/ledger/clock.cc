#include "scheduler/ledger/clock.h"

namespace topoplace::ledger {
namespace {

class WallClock final : public Clock {
 public:
  absl::Time Now() const override { return absl::Now(); }
};

}  // namespace

const Clock& RealClock() {
  static const WallClock* const clock = new WallClock();
  return *clock;
}

}  // namespace topoplace::ledger
