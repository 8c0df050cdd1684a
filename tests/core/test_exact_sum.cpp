// ExactSum (core/exact_sum): exact, correctly rounded and independent of the order of the values,
// of splitting them into partial sums and of merging those through their limbs.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "etdem/core/exact_sum.hpp"

namespace etdem {
namespace {

double sum_of(const std::vector<double>& v) {
  ExactSum s;
  for (double x : v) s += x;
  return s.value();
}

TEST(ExactSum, CancellationThatPlainSummationLoses) {
  EXPECT_EQ(sum_of({1e16, 1.0, -1e16}), 1.0);        // plain: 0
  EXPECT_EQ(sum_of({1e308, 1e308, -1e308}), 1e308);  // plain: inf
  // The doubles nearest 0.1, 0.2 and 0.3 sum to exactly 2^-55 (plain: 2^-54).
  EXPECT_EQ(sum_of({0.1, 0.2, -0.3}), std::ldexp(1.0, -55));
  EXPECT_EQ(sum_of({}), 0.0);
  EXPECT_EQ(sum_of({-2.5}), -2.5);
  const double tiny = std::numeric_limits<double>::denorm_min();
  EXPECT_EQ(sum_of({tiny, tiny, -tiny}), tiny);
  EXPECT_EQ(sum_of({1.0, tiny, -1.0}), tiny);
  EXPECT_TRUE(std::isnan(sum_of({1.0, std::numeric_limits<double>::infinity()})));
  EXPECT_EQ(sum_of({std::numeric_limits<double>::max(), std::numeric_limits<double>::max()}),
            std::numeric_limits<double>::infinity());
}

TEST(ExactSum, EveryFiniteDoubleIsReadExactlyFromItsBits) {
  // Random bit patterns: normal and subnormal numbers of either sign, every exponent. A sum of
  // one value is that value; x + y - x is y, whatever their magnitudes.
  std::mt19937_64 rng(3);
  auto any_double = [&] {
    for (;;) {
      std::uint64_t bits = rng();
      if (rng() % 4 == 0) bits &= ~(std::uint64_t{0x7ff} << 52);  // a subnormal (or zero)
      const double x = std::bit_cast<double>(bits);
      if (std::isfinite(x)) return x;
    }
  };
  for (int trial = 0; trial < 20000; ++trial) {
    const double x = any_double(), y = any_double();
    ASSERT_EQ(sum_of({x}), x) << std::hexfloat << x;
    ASSERT_EQ(sum_of({x, y, -x}), y) << std::hexfloat << x << " " << y;
  }
  EXPECT_EQ(sum_of({std::numeric_limits<double>::min()}), std::numeric_limits<double>::min());
  EXPECT_EQ(sum_of({-std::numeric_limits<double>::denorm_min()}),
            -std::numeric_limits<double>::denorm_min());
}

TEST(ExactSum, PackedPartsSummedElementWiseUnpackToTheTotal) {
  // What a reduction over ranks does: each part packed, the packs added as integers.
  ExactSum whole, parts[3];
  for (int i = 0; i < 300; ++i) {
    const double x = std::ldexp(1.0 + 0.37 * i, (i * 53) % 200 - 100) * (i % 2 ? -1.0 : 1.0);
    whole += x;
    parts[i % 3] += x;
  }
  std::vector<std::int64_t> total(ExactSum::kPacked, 0);
  for (const ExactSum& p : parts) {
    std::vector<std::int64_t> packed(ExactSum::kPacked);
    p.pack(packed.data());
    for (int k = 0; k < ExactSum::kPacked; ++k) total[k] += packed[k];
  }
  const ExactSum sum = ExactSum::unpack(total.data());
  EXPECT_FALSE(sum.nonfinite());
  EXPECT_EQ(sum.value(), whole.value());
  EXPECT_EQ(sum.limbs(), whole.limbs());
  // One part that met a NaN makes the total not finite.
  parts[1] += std::numeric_limits<double>::quiet_NaN();
  std::vector<std::int64_t> packed(ExactSum::kPacked);
  parts[1].pack(packed.data());
  EXPECT_EQ(packed.back(), 1);
  total.back() += packed.back();
  EXPECT_TRUE(ExactSum::unpack(total.data()).nonfinite());
  EXPECT_TRUE(std::isnan(ExactSum::unpack(total.data()).value()));
}

TEST(ExactSum, RoundsTheExactTotalToNearestTiesToEven) {
  // 1 + 2^-53 is a tie between 1 and 1 + 2^-52: to even (1). With 2^-80 more, it rounds up.
  const double half_ulp = std::ldexp(1.0, -53);
  EXPECT_EQ(sum_of({1.0, half_ulp}), 1.0);
  EXPECT_EQ(sum_of({1.0, half_ulp, std::ldexp(1.0, -80)}), 1.0 + 2 * half_ulp);
  EXPECT_EQ(sum_of({1.0 + 2 * half_ulp, half_ulp}), 1.0 + 4 * half_ulp);  // odd: up to even
  // Against long double on values whose exact sum long double holds (64-bit mantissa).
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<std::int64_t> mant(-(std::int64_t{1} << 40), std::int64_t{1} << 40);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> v;
    long double exact = 0;
    for (int i = 0; i < 50; ++i) {
      const double x = std::ldexp(static_cast<double>(mant(rng)), static_cast<int>(rng() % 12));
      v.push_back(x);
      exact += x;  // integers below 2^58 in all: exact in long double
    }
    EXPECT_EQ(sum_of(v), static_cast<double>(exact));
  }
}

TEST(ExactSum, AnyOrderAndAnySplitGiveTheSameBits) {
  std::mt19937_64 rng(11);
  std::lognormal_distribution<double> mag(0.0, 6.0);
  std::vector<double> v(20000);
  for (double& x : v) x = (rng() % 2 ? 1 : -1) * mag(rng);  // energies from 1e-10 to 1e10
  const double reference = sum_of(v);
  for (int trial = 0; trial < 5; ++trial) {
    std::shuffle(v.begin(), v.end(), rng);
    EXPECT_EQ(sum_of(v), reference);
    // Split into parts (threads, ranks) and merge, directly and through the limbs.
    const int parts = 2 + trial;
    std::vector<ExactSum> partial(parts);
    for (std::size_t i = 0; i < v.size(); ++i) partial[i % parts] += v[i];
    ExactSum merged;
    std::array<std::int64_t, ExactSum::kLimbs> limb_total{};
    for (const ExactSum& p : partial) {
      merged.add(p);
      const auto l = p.limbs();
      for (int k = 0; k < ExactSum::kLimbs; ++k) limb_total[k] += l[k];
    }
    EXPECT_EQ(merged.value(), reference);
    EXPECT_EQ(ExactSum::from_limbs(limb_total).value(), reference);
    EXPECT_EQ(merged.limbs(), ExactSum::from_limbs(limb_total).limbs());
  }
  // And it is the correctly rounded sum: plain summation in any order stays within a few ulps.
  double plain = 0;
  for (double x : v) plain += x;
  EXPECT_NEAR(plain, reference, 1e-9 * std::abs(reference) + 1e-6);
}

}  // namespace
}  // namespace etdem
