// Hand-built islands for solver tests: bodies with positions (for angular momentum), the
// IslandBodies view a solver takes, conserved quantities (etdem/validation/island.hpp, shared
// with `etdem validate`), and contacts between spheres and planes
// written down directly (sphere contacts are exact: normal through both centres).
#pragma once

#include <cmath>
#include <random>
#include <span>
#include <vector>

#include "etdem/core/mass_properties.hpp"
#include "etdem/solvers/impulse.hpp"
#include "etdem/solvers/solver.hpp"
#include "etdem/validation/island.hpp"

namespace etdem::test {

using validation::Island;

/// Contact between touching spheres a (radius ra) and b (radius rb); n from b to a.
inline Contact sphere_contact(const Island& is, int a, double ra, int b, double rb, double e,
                              double mu) {
  Contact c;
  c.a = a;
  c.b = b;
  c.normal = (is.x[a] - is.x[b]).normalized();
  c.point = is.x[b] + rb * c.normal;
  c.ra = -ra * c.normal;
  c.rb = rb * c.normal;
  c.restitution = e;
  c.friction = mu;
  return c;
}

/// Contact of sphere a (radius r) with a static plane of unit normal n under it.
inline Contact plane_contact(const Island& is, int a, double r, const Vec3& n, double e,
                             double mu) {
  Contact c;
  c.a = a;
  c.b = -1;
  c.normal = n;
  c.point = is.x[a] - r * n;
  c.ra = -r * n;
  c.rb = c.point;
  c.restitution = e;
  c.friction = mu;
  return c;
}

inline double normal_velocity(const Contact& c, const IslandBodies& b) {
  return c.normal.dot(impulse::relative_velocity(c, b));
}

/// What a solver test compares after the solve: energy, momenta, spins and normal velocities.
struct Before {
  double energy;
  Vec3 momentum, angular_momentum;
  std::vector<Vec3> w;
  std::vector<double> un;
};

inline Before record(Island& is, const std::vector<Contact>& cs) {
  Before b{is.energy(), is.momentum(), is.angular_momentum(), is.w, {}};
  IslandBodies view = is.view();
  for (const Contact& c : cs) b.un.push_back(normal_velocity(c, view));
  return b;
}

/// n equal steel spheres (r = 0.1 m) in a row along x, touching; the first moves at v towards
/// the others; e = 1, no friction.
inline Island cradle(int n, double v, std::vector<Contact>& cs) {
  Island is;
  const double r = 0.1;
  for (int k = 0; k < n; ++k)
    is.add_sphere(r, 7800, Vec3(2 * r * k, 0, 0), Vec3(k == 0 ? v : 0, 0, 0));
  cs.clear();
  for (int k = 0; k + 1 < n; ++k) cs.push_back(sphere_contact(is, k + 1, r, k, r, 1.0, 0.0));
  return is;
}

/// 27 spheres (r = 0.05 m) on a 3x3x3 lattice resting on z = 0, neighbours touching, with random
/// densities, velocities, spins, restitution and friction drawn from `rng`; with `floor`, contacts
/// of the bottom layer with the plane z = 0.
inline Island random_sphere_cluster(std::mt19937_64& rng, bool floor, std::vector<Contact>& cs) {
  std::uniform_real_distribution<double> u(-1.0, 1.0), unit(0.0, 1.0);
  Island is;
  const double r = 0.05;
  for (int k = 0; k < 27; ++k)
    is.add_sphere(r, 1000 + 2000 * unit(rng),
                  2 * r * Vec3(k % 3, (k / 3) % 3, k / 9) + Vec3(0, 0, r),
                  Vec3(u(rng), u(rng), u(rng)), 10 * Vec3(u(rng), u(rng), u(rng)));
  cs.clear();
  for (int i = 0; i < 27; ++i)
    for (int j = 0; j < i; ++j)
      if ((is.x[i] - is.x[j]).norm() < 2 * r + 1e-9)
        cs.push_back(sphere_contact(is, i, r, j, r, 0.9 * unit(rng), unit(rng)));
  if (floor)
    for (int i = 0; i < 9; ++i)
      cs.push_back(plane_contact(is, i, r, Vec3::UnitZ(), 0.9 * unit(rng), unit(rng)));
  return is;
}

/// A sphere between two parallel walls, touching both, moving at 1 m/s towards the right one.
inline Island wedged(double e, std::vector<Contact>& cs) {
  Island is;
  const double r = 0.1;
  is.add_sphere(r, 1000, Vec3(r, 0, 0), Vec3(1, 0, 0));
  cs = {plane_contact(is, 0, r, Vec3::UnitX(), e, 0.0),
        plane_contact(is, 0, r, -Vec3::UnitX(), e, 0.0)};
  return is;
}

}  // namespace etdem::test
