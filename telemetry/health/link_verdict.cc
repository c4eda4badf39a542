#include "telemetry/health/link_verdict.h"

#include <algorithm>

namespace topoplace::telemetry {

absl::string_view LinkVerdictName(LinkVerdict verdict) {
  switch (verdict) {
    case LinkVerdict::kHealthy:
      return "healthy";
    case LinkVerdict::kDegraded:
      return "degraded";
    case LinkVerdict::kDown:
      return "down";
  }
  return "healthy";
}

std::optional<LinkVerdict> ParseLinkVerdict(absl::string_view name) {
  for (LinkVerdict v : {LinkVerdict::kHealthy, LinkVerdict::kDegraded, LinkVerdict::kDown}) {
    if (LinkVerdictName(v) == name) return v;
  }
  return std::nullopt;
}

bool Hysteresis::Observe(LinkVerdict sample) {
  if (sample == state_) {
    worse_count_ = 0;
    better_count_ = 0;
    return false;
  }
  if (sample > state_) {
    better_count_ = 0;
    worse_mildest_ = worse_count_ == 0 ? sample : std::min(worse_mildest_, sample);
    if (++worse_count_ < options_.worsen_after) return false;
    state_ = worse_mildest_;
  } else {
    worse_count_ = 0;
    better_worst_ = better_count_ == 0 ? sample : std::max(better_worst_, sample);
    if (++better_count_ < options_.recover_after) return false;
    state_ = better_worst_;
  }
  worse_count_ = 0;
  better_count_ = 0;
  return true;
}

}  // namespace topoplace::telemetry
