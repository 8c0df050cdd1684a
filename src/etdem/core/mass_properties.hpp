// Mass properties of solid shapes: mass and principal moments about the centre of mass.
// Shapes are stored in their principal frame, so the inertia tensor is diagonal in body frame.
#pragma once

#include "etdem/core/math.hpp"

namespace etdem {

struct MassProperties {
  double volume = 0.0;   // m^3
  double mass = 0.0;     // kg
  Vec3 inertia{0, 0, 0}; // principal moments about the centre of mass, kg m^2 (body frame)
};

/// Solid sphere of radius r: I = 2/5 m r^2.
inline MassProperties sphere_mass_properties(double radius, double density) {
  MassProperties mp;
  mp.volume = 4.0 / 3.0 * M_PI * radius * radius * radius;
  mp.mass = density * mp.volume;
  const double i = 0.4 * mp.mass * radius * radius;
  mp.inertia = Vec3(i, i, i);
  return mp;
}

/// Solid box with half extents h: I_x = m/3 (h_y^2 + h_z^2), etc.
inline MassProperties box_mass_properties(const Vec3& half, double density) {
  MassProperties mp;
  mp.volume = 8.0 * half.x() * half.y() * half.z();
  mp.mass = density * mp.volume;
  const Vec3 s = half.cwiseProduct(half);
  mp.inertia = mp.mass / 3.0 * Vec3(s.y() + s.z(), s.x() + s.z(), s.x() + s.y());
  return mp;
}

}  // namespace etdem
