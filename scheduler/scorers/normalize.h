// Small helpers shared by the scorers' normalisation steps.
#ifndef TOPOPLACE_SCHEDULER_SCORERS_NORMALIZE_H_
#define TOPOPLACE_SCHEDULER_SCORERS_NORMALIZE_H_

#include <algorithm>

#include "scheduler/framework/placement_policy.h"

namespace topoplace::sched {

// value / reference clamped to [0, 1]; 0 when the reference is not positive.
inline double Ratio01(double value, double reference) {
  if (!(reference > 0)) return 0;
  return std::clamp(value / reference, 0.0, 1.0);
}

// Every byte of the job that placement can move off a host's or a domain's NVLink: all
// dimensions but TP, which the engine keeps inside one (unless tp_across_nodes). The
// reference the byte-counting scorers normalise by: candidate-independent, so costs
// compare across candidates.
inline double MovableBytes(const PlacementContext& ctx) {
  double bytes = 0;
  for (Dim d : kAllDims) {
    if (d == Dim::kTp && !ctx.job.tp_across_nodes) continue;
    bytes += ctx.traffic.per_rank_bytes[static_cast<int>(d)] * ctx.layout.world_size();
  }
  return bytes;
}

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_SCORERS_NORMALIZE_H_
