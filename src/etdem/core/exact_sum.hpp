// The exact sum of doubles, whatever the order they come in: each value is added to a wide
// fixed-point integer (every double is an integer multiple of 2^-1074), and the total is rounded
// to a double once, when read. Sums over bodies or islands then give the same bits for any thread
// count, any island order and any number of MPI ranks (a rank's partial sums merge exactly);
// they are also exact, which a plain loop over a million kinetic energies is not.
#pragma once

#include <array>
#include <cstdint>

namespace etdem {

class ExactSum {
 public:
  /// Limbs of 32 bits from 2^-1074 up past the largest double, with room for 2^31 of them.
  static constexpr int kLimbs = 70;

  void add(double x);
  /// Adds another partial sum (of another thread or rank).
  void add(const ExactSum& other);
  ExactSum& operator+=(double x) {
    add(x);
    return *this;
  }
  /// The sum rounded to the nearest double (ties to even); +-inf beyond the double range, NaN if
  /// a NaN or an infinity was added.
  double value() const;

  /// The normalised limbs (each in [0, 2^32) but the last, which carries the sign): equal sums
  /// have equal limbs. A sum of limb arrays (e.g. an integer MPI_SUM over ranks) is the limbs
  /// of the total, ready for from_limbs.
  std::array<std::int64_t, kLimbs> limbs() const;
  static ExactSum from_limbs(const std::array<std::int64_t, kLimbs>& limbs, bool nonfinite = false);
  bool nonfinite() const { return nonfinite_; }

  /// The sum as kPacked integers: its limbs, then 1 if it met a non-finite term (else 0). The
  /// element-wise sum of packed sums (an integer MPI_SUM over ranks) unpacks to their total, not
  /// finite when any part was not.
  static constexpr int kPacked = kLimbs + 1;
  void pack(std::int64_t* out) const;
  static ExactSum unpack(const std::int64_t* in);

 private:
  void normalise();
  std::array<std::int64_t, kLimbs> limb_{};  // value = sum limb_[k] 2^(32 k - 1074)
  std::int64_t pending_ = 0;                 // adds since the last normalisation
  bool nonfinite_ = false;
};

}  // namespace etdem
