#include "scheduler/traffic/repeated_add.h"

#include <cmath>
#include <limits>

namespace topoplace::sched {

// Why the jump is exact. Let acc lie in the binade [2^(e-1), 2^e) = [top/2, top), where
// doubles are the multiples of ulp = 2^(e-53). While acc' + x < top, the two doubles
// around acc' + x are acc' + floor(x/ulp)*ulp and acc' + ceil(x/ulp)*ulp (top itself is a
// double), so unless x/ulp is exactly halfway between two integers (a tie, decided by
// acc''s parity), rounding adds the same step = round(x/ulp)*ulp every time. Every
// intermediate sum is then a multiple of ulp below top, hence representable, so k steps
// equal acc + k*step computed exactly. Steps that leave the binade are taken one by one.
double AddRepeated(double acc, double x, int64_t n) {
  const bool fast = x > 0 && acc >= 0 && std::isfinite(x) && std::isfinite(acc);
  while (n > 0) {
    const double next = acc + x;
    if (!fast || acc == 0 || n == 1) {
      acc = next;
      --n;
      continue;
    }
    int e = 0;
    std::frexp(acc, &e);                                            // acc in [2^(e-1), 2^e)
    if (e - 53 < std::numeric_limits<double>::min_exponent - 53) {  // subnormal spacing
      acc = next;
      --n;
      continue;
    }
    const double top = std::ldexp(1.0, e);
    if (next >= top) {  // leaves the binade: one ordinary step
      acc = next;
      --n;
      continue;
    }
    const double ulp = std::ldexp(1.0, e - 53);
    const double step = next - acc;            // exact: both are multiples of ulp below top
    if (step == 0) return acc;                 // x rounds away to nothing here, and will again
    const double x_ulps = x / ulp;             // exact (a power-of-two scaling), below 2^53
    if (x_ulps - std::floor(x_ulps) == 0.5) {  // a tie: the result depends on acc's parity
      acc = next;
      --n;
      continue;
    }
    // Steps j = 0, 1, ... stay in the binade while acc + j*step + x < top. In units of
    // ulp, room = (top - acc - x) / ulp <= 2^52; the margins cover the rounding of room
    // and of the division, so every j < k is certain to satisfy it.
    const double room = (top - acc) / ulp - x_ulps;
    const double k_real = std::floor((room - 2) / (step / ulp)) - 1;
    if (k_real < 1) {
      acc = next;
      --n;
      continue;
    }
    const int64_t k = k_real >= static_cast<double>(n) ? n : static_cast<int64_t>(k_real);
    acc += static_cast<double>(k) * step;  // k*step < 2^53 ulp: exact, and so is the sum
    n -= k;
  }
  return acc;
}

}  // namespace topoplace::sched
