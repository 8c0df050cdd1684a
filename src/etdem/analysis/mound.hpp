// Mound geometry (`etdem analyze mound`; the 2024 paper's §6.2 compares mounds by "final height
// and spread" without defining them, so we do, docs/scenario.md):
//   axis    - the vertical through the weighted centroid (x, y) of the grains' centres,
//   height  - the highest surface node above the base (the floor),
//   spread  - the radius about the axis within which lie the centres of the grains holding
//             `fraction` (95 %) of the deposit's weight (volume: mass for one material),
//   spread_count - the same radius for `fraction` of the grains counted one each,
//   reach   - the largest horizontal distance of a surface node from the axis,
//   profile - per annulus of width `bin` about the axis: the highest surface node above the
//             base, how many nodes, and the share of the weight whose centres lie in it.
// A pure function of points, unit-tested on synthetic cones.
#pragma once

#include <span>
#include <vector>

#include "etdem/core/math.hpp"

namespace etdem {

struct MoundSettings {
  double fraction = 0.95;  // of the weight inside the spread radius, (0, 1]
  double bin = 0.01;       // [m] annulus width of the profile, > 0
};

struct MoundBin {
  double r_inner = 0.0, r_outer = 0.0;  // [m]
  double top = 0.0;                     // [m] highest node above the base; NaN without nodes
  long nodes = 0;
  double share = 0.0;  // of the total weight, by grain centre
};

struct MoundResult {
  double axis_x = 0.0, axis_y = 0.0;  // [m]
  double base = 0.0;                  // [m]
  double height = 0.0;                // [m]
  double spread = 0.0;                // [m]
  double spread_count = 0.0;          // [m]
  double reach = 0.0;                 // [m]
  long grains = 0;
  std::vector<MoundBin> profile;
};

/// At most this many profile annuli (reach / bin); more is refused before allocating.
inline constexpr long kMaxMoundBins = 1'000'000;

/// `nodes`: the grains' world surface points; `centres` and `weights`: one per grain. Throws
/// std::invalid_argument for no grains, mismatched lengths, non-positive weights, a fraction
/// outside (0, 1], bin <= 0 or more than kMaxMoundBins annuli.
MoundResult analyze_mound(std::span<const Vec3> nodes, std::span<const Vec3> centres,
                          std::span<const double> weights, double base,
                          const MoundSettings& settings = {});

/// The smallest value v of `values` such that the weights of the values <= v add up to at least
/// `fraction` of the total (fraction in [0, 1]; 0 gives the smallest value). Empty: NaN.
double weighted_quantile(std::span<const double> values, std::span<const double> weights,
                         double fraction);

}  // namespace etdem
