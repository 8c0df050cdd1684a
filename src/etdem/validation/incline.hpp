// The block on an incline of V6, on a one-sided plane or on a terrain height map (the validation
// case of validation/cases.hpp and tests/world/test_validation_v3_v8.cpp,
// test_terrain_validation.cpp).
#pragma once

#include <cmath>
#include <memory>

#include "etdem/validation/scene.hpp"

namespace etdem::validation {

// V6: a block sliding down a 30 degree incline: v(d) = sqrt(2 g d (sin t - mu cos t)).
// The surface descends along +x: normal n = (sin t, 0, cos t), downhill d = (cos t, 0, -sin t).
struct Incline {
  Scene t;
  int box = -1;
  Vec3 downhill;
  Vec3 start;
  /// On a plane, or on `terrain` (the same incline as a height map) when given.
  Incline(double slope_deg, double friction_deg, std::shared_ptr<const Terrain> terrain = nullptr)
      : t(0.0, std::tan(friction_deg * M_PI / 180)) {
    t.world.settings.gravity = Vec3(0, 0, -9.81);
    const double th = slope_deg * M_PI / 180;
    const Vec3 n(std::sin(th), 0, std::cos(th));
    downhill = Vec3(std::cos(th), 0, -std::sin(th));
    if (terrain)
      t.world.add_terrain(terrain, t.material, "incline");
    else
      t.add_plane(Vec3::Zero(), n);
    start = 0.05 * n;  // resting flat on the incline, half height 0.05 m
    box = t.add_box(Vec3(0.1, 0.1, 0.05), start, Quat(Eigen::AngleAxisd(th, Vec3::UnitY())));
  }
  double distance() const { return (t.world.bodies.position[box] - start).dot(downhill); }
  double speed() const { return t.world.bodies.velocity[box].dot(downhill); }
};

}  // namespace etdem::validation
