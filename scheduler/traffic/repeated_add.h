// Adds one value many times to an accumulator with exactly the rounding of a loop of
// `acc += x`, but in O(log n) steps instead of n. The traffic evaluator counts the pairs
// of each (dimension, tier) and books their bytes at the end with this, so its totals stay
// bit-identical to booking pair by pair.
//
//   double bytes = AddRepeated(0.0, pair_bytes, pairs);  // == 0 + x + x + ... (pairs times)
//
// Pure function; thread-safe.
#ifndef TOPOPLACE_SCHEDULER_TRAFFIC_REPEATED_ADD_H_
#define TOPOPLACE_SCHEDULER_TRAFFIC_REPEATED_ADD_H_

#include <cstdint>

namespace topoplace::sched {

// Returns the result of `for (int64_t i = 0; i < n; ++i) acc += x;` in IEEE double
// arithmetic (round to nearest, ties to even), bit for bit. Fast for finite acc >= 0 and
// x > 0, where the sum stays in one binade for many steps at a time; any other input (and
// a binade where x falls exactly halfway between two representable steps) takes the loop.
// n <= 0 returns acc.
double AddRepeated(double acc, double x, int64_t n);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_TRAFFIC_REPEATED_ADD_H_
