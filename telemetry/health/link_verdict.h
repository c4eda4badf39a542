// Link health as telemetry judges it: healthy < degraded < down (ordered by severity),
// and the hysteresis that turns a stream of per-sample verdicts into a state that does
// not flap on one bad (or one good) sample.
//
//   Hysteresis h({.worsen_after = 2, .recover_after = 3});
//   if (h.Observe(LinkVerdict::kDown)) ... h.state() changed ...
//
// Not thread-safe; the owner (FabricHealthModel) serialises access.
#ifndef TOPOPLACE_TELEMETRY_HEALTH_LINK_VERDICT_H_
#define TOPOPLACE_TELEMETRY_HEALTH_LINK_VERDICT_H_

#include <cstdint>
#include <optional>

#include "absl/strings/string_view.h"

namespace topoplace::telemetry {

enum class LinkVerdict : uint8_t { kHealthy = 0, kDegraded = 1, kDown = 2 };

// "healthy", "degraded", "down".
absl::string_view LinkVerdictName(LinkVerdict verdict);
std::optional<LinkVerdict> ParseLinkVerdict(absl::string_view name);

struct HysteresisOptions {
  // Consecutive samples worse than the state before the state worsens. The new state is
  // the mildest verdict of that streak (two samples "down, degraded" make it degraded).
  int worsen_after = 2;
  // Consecutive samples better than the state before it recovers, to the worst verdict
  // of that streak.
  int recover_after = 3;
};

class Hysteresis {
 public:
  explicit Hysteresis(HysteresisOptions options = {}) : options_(options) {}

  // Feeds one sample verdict. Returns true when the state changed.
  bool Observe(LinkVerdict sample);
  LinkVerdict state() const { return state_; }
  // Sets the state (e.g. restored from persisted events) and clears both streaks.
  void Reset(LinkVerdict state) {
    *this = Hysteresis(options_);
    state_ = state;
  }

 private:
  HysteresisOptions options_;
  LinkVerdict state_ = LinkVerdict::kHealthy;
  int worse_count_ = 0;
  LinkVerdict worse_mildest_ = LinkVerdict::kDown;
  int better_count_ = 0;
  LinkVerdict better_worst_ = LinkVerdict::kHealthy;
};

}  // namespace topoplace::telemetry

#endif  // TOPOPLACE_TELEMETRY_HEALTH_LINK_VERDICT_H_
