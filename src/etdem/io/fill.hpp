// Generated packings ([[fill]]): grains on a cubic lattice inside a region, filled corner first
// (the region's min corner), x fastest, then y, then z, each grain moved off its site by a
// random jitter and optionally turned to a random orientation. Deterministic from the seed on
// every platform: std::mt19937_64 (its output sequence is fixed by the standard) mapped to
// [0, 1) by our own 53-bit conversion rather than std::uniform_real_distribution, whose
// algorithm differs between standard libraries.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "etdem/core/math.hpp"
#include "etdem/io/scenario_spec.hpp"

namespace etdem {

struct Placement {
  Vec3 position{0, 0, 0};
  Quat orientation = Quat::Identity();
};

/// Portable uniform numbers in [0, 1) from std::mt19937_64.
class PortableRandom {
 public:
  explicit PortableRandom(std::uint64_t seed) : engine_(seed) {}
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  /// Uniformly distributed unit quaternion (Shoemake, Graphics Gems III).
  Quat orientation();

 private:
  std::mt19937_64 engine_;
};

/// Lattice sites along each axis of a fill region: floor(extent / spacing).
Eigen::Vector3i fill_lattice(const FillSpec& fill);

/// Number of grains the region can hold at the fill's spacing.
long fill_capacity(const FillSpec& fill);

/// Positions and orientations of the fill's grains. `size` [m] is the grain's bounding
/// diameter; the jitter moves each grain by up to jitter * (spacing - size) / 2 along each axis,
/// so grains never overlap one another and never leave the region.
std::vector<Placement> generate_fill(const FillSpec& fill, double size);

}  // namespace etdem
