// Runout of a deposit (`etdem analyze runout`), measured from an origin (the apex: where the flow
// enters the runout zone, e.g. a channel's mouth) along a horizontal direction d, with d_perp =
// d turned 90 degrees counter-clockwise (to the left of d, seen from above):
//   runout          - the farthest point of the deposit's footprint along d: max (p - o).d,
//   runout_fraction - the distance along d not passed by the centres of the grains holding
//                     `fraction` (95 %) of the deposit's weight,
//   width           - the extent of the footprint along d_perp,
//   area            - the area of the deposit map's covered cells (analysis/footprint.hpp),
//   fan angle       - seen from the apex, the bearings (angle from d, positive to the left) of
//                     the covered cells ahead of the apex ((c - o).d > 0): `fan_angle_full` spans
//                     all of them, `fan_angle` the central `fraction` of them by area (a fan of
//                     uniform cover and opening A gives fan_angle_full = A, fan_angle = 0.95 A).
// Pure functions of footprints, unit-tested on synthetic deposits of known shape.
#pragma once

#include <span>

#include "etdem/analysis/footprint.hpp"

namespace etdem {

struct RunoutSettings {
  Vec2 direction{1, 0};    // horizontal, any length > 0 (normalised)
  Vec2 origin{0, 0};       // [m] the apex
  double fraction = 0.95;  // (0, 1]
  double cell = 0.01;      // [m] deposit map cell
};

struct RunoutResult {
  Vec2 direction{1, 0};          // unit
  double runout = 0.0;           // [m]
  double runout_fraction = 0.0;  // [m]
  double rear = 0.0;             // [m] nearest point of the footprint along d: min (p - o).d
  double width = 0.0;            // [m]
  double area = 0.0;             // [m^2]
  double fan_angle = 0.0;        // [deg] central `fraction` (NaN: nothing ahead of the apex)
  double fan_angle_full = 0.0;   // [deg]
  double fan_right = 0.0, fan_left = 0.0;  // [deg] bearings bounding fan_angle
  long cells_ahead = 0;
  long grains = 0;
  DepositMap map;
};

/// Throws std::invalid_argument for no grains, a zero or non-finite direction, a fraction
/// outside (0, 1] or a bad cell (deposit_map).
RunoutResult analyze_runout(std::span<const GrainFootprint> grains,
                            const RunoutSettings& settings = {});

}  // namespace etdem
