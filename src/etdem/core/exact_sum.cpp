#include "etdem/core/exact_sum.hpp"

#include <algorithm>

#include <bit>
#include <cmath>
#include <limits>

namespace etdem {
namespace {

__extension__ typedef unsigned __int128 u128;  // GCC and Clang; -Wpedantic otherwise warns

constexpr std::int64_t kMask = 0xffffffffLL;
constexpr std::int64_t kNormaliseEvery = std::int64_t{1} << 30;  // limbs grow < 2^32 per add

/// Carries so that limbs 0..n-2 lie in [0, 2^32); the last keeps the rest, with the sign.
void carry(std::array<std::int64_t, ExactSum::kLimbs>& l) {
  for (int k = 0; k + 1 < ExactSum::kLimbs; ++k) {
    const std::int64_t c = l[k] >> 32;  // arithmetic shift: floor division by 2^32
    l[k] -= c * (std::int64_t{1} << 32);
    l[k + 1] += c;
  }
}

}  // namespace

void ExactSum::add(double x) {
  if (x == 0.0) return;
  if (!std::isfinite(x)) {
    nonfinite_ = true;
    return;
  }
  // x = (-1)^s m 2^(p - 1074) read from its bits: a normal number's biased exponent b >= 1 gives
  // m = 2^52 + fraction and p = b - 1; a subnormal's (b = 0) gives m = fraction and p = 0.
  const auto bits = std::bit_cast<std::uint64_t>(x);
  const bool negative = (bits >> 63) != 0;
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
  const std::uint64_t m = biased > 0 ? fraction | (std::uint64_t{1} << 52) : fraction;
  const int p = biased > 0 ? biased - 1 : 0;
  const auto u = static_cast<u128>(m) << (p % 32);
  const int k = p / 32;
  const std::int64_t chunk[3] = {static_cast<std::int64_t>(u & kMask),
                                 static_cast<std::int64_t>((u >> 32) & kMask),
                                 static_cast<std::int64_t>(u >> 64)};
  for (int j = 0; j < 3 && k + j < kLimbs; ++j) limb_[k + j] += negative ? -chunk[j] : chunk[j];
  if (++pending_ >= kNormaliseEvery) normalise();
}

void ExactSum::add(const ExactSum& other) {
  if (pending_ + other.pending_ + 2 >= kNormaliseEvery) normalise();
  const auto o = other.limbs();  // normalised: each limb below 2^32 in magnitude but the last
  for (int k = 0; k < kLimbs; ++k) limb_[k] += o[k];
  pending_ += 1;
  nonfinite_ = nonfinite_ || other.nonfinite_;
}

void ExactSum::normalise() {
  carry(limb_);
  pending_ = 0;
}

std::array<std::int64_t, ExactSum::kLimbs> ExactSum::limbs() const {
  auto l = limb_;
  carry(l);
  return l;
}

ExactSum ExactSum::from_limbs(const std::array<std::int64_t, kLimbs>& limbs, bool nonfinite) {
  ExactSum s;
  s.limb_ = limbs;
  s.normalise();
  s.nonfinite_ = nonfinite;
  return s;
}

void ExactSum::pack(std::int64_t* out) const {
  const auto l = limbs();
  std::copy(l.begin(), l.end(), out);
  out[kLimbs] = nonfinite_ ? 1 : 0;
}

ExactSum ExactSum::unpack(const std::int64_t* in) {
  std::array<std::int64_t, kLimbs> l{};
  std::copy(in, in + kLimbs, l.begin());
  return from_limbs(l, in[kLimbs] != 0);
}

double ExactSum::value() const {
  if (nonfinite_) return std::numeric_limits<double>::quiet_NaN();
  auto l = limbs();
  const bool negative = l[kLimbs - 1] < 0;
  if (negative) {
    for (auto& v : l) v = -v;
    carry(l);
  }
  int top = kLimbs - 1;
  while (top >= 0 && l[top] == 0) --top;
  if (top < 0) return 0.0;
  // The three limbs from the top (at most 2^32 * 2^64 in all: the top limb may exceed 2^32
  // only far beyond the double range) and a sticky bit for anything below them.
  u128 v = 0;
  int base = top - 2;  // limb index of v's lowest 32 bits
  for (int k = top; k >= top - 2; --k)
    v = (v << 32) | (k >= 0 ? static_cast<std::uint64_t>(l[k]) : 0u);
  bool sticky = false;
  for (int k = 0; k < base; ++k) sticky = sticky || l[k] != 0;
  const auto hi = static_cast<std::uint64_t>(v >> 64), lo = static_cast<std::uint64_t>(v);
  const int bits = hi ? 64 + std::bit_width(hi) : std::bit_width(lo);
  std::uint64_t mantissa;
  int shift = bits - 53;
  if (shift > 0) {
    const u128 rest = v & ((static_cast<u128>(1) << shift) - 1);
    const u128 half = static_cast<u128>(1) << (shift - 1);
    mantissa = static_cast<std::uint64_t>(v >> shift);
    if (rest > half || (rest == half && (sticky || (mantissa & 1)))) ++mantissa;
  } else {
    mantissa = static_cast<std::uint64_t>(v);  // exact (nothing below: top < 2 here)
    shift = 0;
  }
  const double magnitude = std::ldexp(static_cast<double>(mantissa), shift + 32 * base - 1074);
  return negative ? -magnitude : magnitude;
}

}  // namespace etdem
