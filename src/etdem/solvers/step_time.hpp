// What a step's solvers need to know of the step itself: its length and the acceleration every
// dynamic body got at its start. Set for each (sub-)step by the world, never by the scenario.
#pragma once

#include "etdem/core/math.hpp"

namespace etdem {

struct StepTime {
  double h = 0.0;             // [s] the (sub-)step's length
  Vec3 gravity{0, 0, 0};      // [m/s^2] the acceleration whose kick g h every dynamic body got
  /// Unit direction of gravity (zero without gravity).
  Vec3 down() const {
    return gravity.squaredNorm() > 0.0 ? Vec3(gravity.normalized()) : Vec3::Zero();
  }
  bool operator==(const StepTime&) const = default;
};

}  // namespace etdem
