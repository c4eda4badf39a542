// Small helpers shared by the scorers' normalisation steps.
#ifndef TOPOPLACE_SCHEDULER_SCORERS_NORMALIZE_H_
#define TOPOPLACE_SCHEDULER_SCORERS_NORMALIZE_H_

#include <algorithm>

namespace topoplace::sched {

// value / reference clamped to [0, 1]; 0 when the reference is not positive.
inline double Ratio01(double value, double reference) {
  if (!(reference > 0)) return 0;
  return std::clamp(value / reference, 0.0, 1.0);
}

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_SCORERS_NORMALIZE_H_
