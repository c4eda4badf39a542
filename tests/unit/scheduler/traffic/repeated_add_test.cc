#include "scheduler/traffic/repeated_add.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

namespace topoplace::sched {
namespace {

double Loop(double acc, double x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) acc += x;
  return acc;
}

// Bit-for-bit equality (EXPECT_EQ on doubles would accept -0 == +0).
void ExpectSameBits(double got, double want, double acc, double x, int64_t n) {
  EXPECT_EQ(std::signbit(got), std::signbit(want));
  EXPECT_EQ(got, want) << std::hexfloat << "acc=" << acc << " x=" << x << " n=" << n;
}

TEST(AddRepeated, MatchesTheLoopOnBytesLikeValues) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-10, 40);
  std::uniform_int_distribution<int64_t> count(0, 40000);
  for (int i = 0; i < 3000; ++i) {
    const double x = std::ldexp(mantissa(rng), exponent(rng));  // full 53-bit mantissas
    const double acc = i % 3 == 0 ? 0.0 : std::ldexp(mantissa(rng), exponent(rng) + 5);
    const int64_t n = count(rng);
    ExpectSameBits(AddRepeated(acc, x, n), Loop(acc, x, n), acc, x, n);
  }
}

TEST(AddRepeated, MatchesTheLoopOnShortMantissasAndTies) {
  // Integers and halves: sums hit exact ties (x = 3 at a spacing of 2 is halfway), where
  // the rounding depends on the accumulator's parity.
  for (double x : {1.0, 3.0, 0.5, 1.5, 1e9, 7.0 / 8, 3.0 * 0x1p-30}) {
    for (double acc : {0.0, 1.0, 0x1p53, 0x1p53 - 6, 0x1p54 + 2, 12345.25}) {
      for (int64_t n : {0, 1, 2, 3, 17, 1000, 65537}) {
        ExpectSameBits(AddRepeated(acc, x, n), Loop(acc, x, n), acc, x, n);
      }
    }
  }
}

TEST(AddRepeated, MatchesTheLoopOnShortRandomMantissas) {
  // Integers of up to 40 bits scaled by powers of two: the one-grid path, and its edge
  // where the total needs more than 53 bits.
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int64_t> mantissa(1, int64_t{1} << 40);
  std::uniform_int_distribution<int> exponent(-30, 10);
  std::uniform_int_distribution<int64_t> count(0, 40000);
  for (int i = 0; i < 2000; ++i) {
    const double x = std::ldexp(static_cast<double>(mantissa(rng)), exponent(rng));
    const double acc =
        i % 4 == 0 ? 0.0 : std::ldexp(static_cast<double>(mantissa(rng)), exponent(rng));
    const int64_t n = count(rng);
    ExpectSameBits(AddRepeated(acc, x, n), Loop(acc, x, n), acc, x, n);
  }
}

TEST(AddRepeated, SumsThatStayOnOneGridAreExactWhateverTheCount) {
  // 0.75 = 3 * 2^-2 and acc = 5 * 2^-2: every partial sum below 2^53 quarters is a double.
  EXPECT_EQ(AddRepeated(1.25, 0.75, int64_t{1} << 40), 1.25 + 0.75 * 0x1p40);
  // One step past the grid's 2^53 units: the loop's rounding takes over (here, nothing
  // to round: still exact), and the answer matches the loop on a count it can run.
  ExpectSameBits(AddRepeated(0x1p53 - 4, 1.0, 9), Loop(0x1p53 - 4, 1.0, 9), 0x1p53 - 4, 1.0, 9);
  ExpectSameBits(AddRepeated(0x1p52 + 1, 0.5, 9), Loop(0x1p52 + 1, 0.5, 9), 0x1p52 + 1, 0.5, 9);
}

TEST(AddRepeated, OneGridSumsAtTheEdgesOfTheExponentRange) {
  // The one-grid path reads exponents from the bits and scales by 2^low: at the smallest
  // normal grid (2^-1022), below it (subnormal grids, 2^-1074 at the least), and at the
  // top, where the sum overflows to infinity as the loop's does.
  for (double x : {0x1p-1022, 3 * 0x1p-1022, 0x1p-1023, 5 * 0x1p-1074, 0x1p-1074,
                   0x1.fffffffffffffp-1023, 0x1p1023, 0x1.8p1022, 0x1p970}) {
    for (double acc : {0.0, x, 0x1p-1020}) {
      for (int64_t n : {2, 3, 1000}) {
        ExpectSameBits(AddRepeated(acc, x, n), Loop(acc, x, n), acc, x, n);
      }
    }
  }
  EXPECT_EQ(AddRepeated(0.0, 0x1p1023, 2), std::numeric_limits<double>::infinity());
}

TEST(AddRepeated, StepsSmallerThanHalfASpacingVanish) {
  const double acc = 0x1p60;
  EXPECT_EQ(AddRepeated(acc, 1.0, 1000000), acc);
  ExpectSameBits(AddRepeated(acc, 0x1p7 + 1, 1000), Loop(acc, 0x1p7 + 1, 1000), acc, 0x1p7 + 1,
                 1000);
}

TEST(AddRepeated, OtherInputsTakeTheLoop) {
  const double inf = std::numeric_limits<double>::infinity();
  for (double x : {-2.5, 0.0, -0.0, inf, 1e-310}) {
    for (double acc : {-0.0, 0.0, -7.25, 1e300, 1e-320}) {
      ExpectSameBits(AddRepeated(acc, x, 100), Loop(acc, x, 100), acc, x, 100);
    }
  }
  EXPECT_TRUE(std::isnan(AddRepeated(std::nan(""), 1.0, 5)));
  EXPECT_EQ(AddRepeated(4.0, 1.0, -3), 4.0);
}

}  // namespace
}  // namespace topoplace::sched
