#include "scheduler/traffic/repeated_add.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

namespace topoplace::sched {
namespace {

// The fields of an IEEE-754 double (binary64), read from its bits: the fast path below
// runs for every booking of every candidate, where frexp and ldexp are library calls.
constexpr int kFractionBits = 52;
constexpr int kExponentBias = 1023;
constexpr uint64_t kFractionMask = (uint64_t{1} << kFractionBits) - 1;

// v = odd * 2^exp for a finite v > 0 (a subnormal v has no implicit leading bit and the
// smallest exponent).
void OddScaled(double v, uint64_t& odd, int& exp) {
  const auto bits = std::bit_cast<uint64_t>(v);
  const auto biased = static_cast<int>(bits >> kFractionBits);
  const uint64_t mantissa =
      biased == 0 ? bits & kFractionMask : (bits & kFractionMask) | (kFractionMask + 1);
  const int zeros = std::countr_zero(mantissa);
  odd = mantissa >> zeros;
  exp = std::max(biased, 1) - kExponentBias - kFractionBits + zeros;
}

// 2^e as a double, for e in the normal range [-1022, 1023].
double PowerOfTwo(int e) {
  return std::bit_cast<double>(static_cast<uint64_t>(e + kExponentBias) << kFractionBits);
}

// The common case of byte counts, in one step: when acc and x are multiples of one power
// of two 2^low and acc + n*x stays below 2^53 of them, every partial sum is such a
// multiple below 2^53 * 2^low, hence a double, so each addition is exact and the loop's
// result is acc + n*x itself. nullopt otherwise.
std::optional<double> SumOnOneGrid(double acc, double x, int64_t n) {
  uint64_t x_odd = 0, acc_odd = 0;
  int x_exp = 0, acc_exp = 0;
  OddScaled(x, x_odd, x_exp);
  if (acc != 0) OddScaled(acc, acc_odd, acc_exp);
  const int low = acc == 0 ? x_exp : std::min(x_exp, acc_exp);
  constexpr uint64_t kLimit = uint64_t{1} << 53;
  if (x_exp - low >= 53 || (acc != 0 && acc_exp - low >= 53)) return std::nullopt;
  // Both in units of 2^low, each below 2^53 (checked before shifting).
  if (x_odd >= (kLimit >> (x_exp - low))) return std::nullopt;
  if (acc != 0 && acc_odd >= (kLimit >> (acc_exp - low))) return std::nullopt;
  const uint64_t units_x = x_odd << (x_exp - low);
  const uint64_t units_acc = acc == 0 ? 0 : acc_odd << (acc_exp - low);
  if (static_cast<uint64_t>(n) > (kLimit - 1 - units_acc) / units_x) return std::nullopt;
  const uint64_t total = units_acc + static_cast<uint64_t>(n) * units_x;
  // total * 2^low is a double (see above): scaling by an exact power of two is exact.
  if (low < 1 - kExponentBias) return std::ldexp(static_cast<double>(total), low);
  return static_cast<double>(total) * PowerOfTwo(low);
}

}  // namespace

// Why the jump is exact. Let acc lie in the binade [2^(e-1), 2^e) = [top/2, top), where
// doubles are the multiples of ulp = 2^(e-53). While acc' + x < top, the two doubles
// around acc' + x are acc' + floor(x/ulp)*ulp and acc' + ceil(x/ulp)*ulp (top itself is a
// double), so unless x/ulp is exactly halfway between two integers (a tie, decided by
// acc''s parity), rounding adds the same step = round(x/ulp)*ulp every time. Every
// intermediate sum is then a multiple of ulp below top, hence representable, so k steps
// equal acc + k*step computed exactly. Steps that leave the binade are taken one by one.
double AddRepeated(double acc, double x, int64_t n) {
  const bool fast = x > 0 && acc >= 0 && std::isfinite(x) && std::isfinite(acc);
  if (fast && n > 1) {
    if (std::optional<double> sum = SumOnOneGrid(acc, x, n)) return *sum;
  }
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
