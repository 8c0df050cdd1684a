// A hand-built island: bodies with positions (for angular momentum), the IslandBodies view a
// solver takes, and the conserved quantities, for cases that call a solver directly (V1, V2 in
// validation/cases.cpp, the solver tests through tests/support/test_island_fixture.hpp).
#pragma once

#include <vector>

#include "etdem/collision/contact.hpp"
#include "etdem/core/mass_properties.hpp"
#include "etdem/core/math.hpp"
#include "etdem/solvers/solver.hpp"

namespace etdem::validation {

struct Island {
  std::vector<Vec3> x, v, w, inertia;
  std::vector<double> m, inv_m;
  std::vector<Mat3> inv_i;
  std::vector<Quat> q;

  int add(const MassProperties& mp, const Vec3& pos, const Vec3& vel,
          const Vec3& omega = Vec3::Zero(), const Quat& orient = Quat::Identity()) {
    x.push_back(pos);
    v.push_back(vel);
    w.push_back(omega);
    m.push_back(mp.mass);
    inv_m.push_back(1.0 / mp.mass);
    inertia.push_back(mp.inertia);
    q.push_back(orient);
    inv_i.push_back(world_inverse_inertia(orient, mp.inertia.cwiseInverse()));
    return static_cast<int>(v.size()) - 1;
  }
  /// The same with the orientation given before the velocities.
  int add(const MassProperties& mp, const Vec3& pos, const Quat& orient, const Vec3& vel,
          const Vec3& omega = Vec3::Zero()) {
    return add(mp, pos, vel, omega, orient);
  }
  int add_sphere(double radius, double density, const Vec3& pos, const Vec3& vel,
                 const Vec3& omega = Vec3::Zero()) {
    return add(sphere_mass_properties(radius, density), pos, vel, omega);
  }
  IslandBodies view() {
    return {static_cast<int>(v.size()), v.data(), w.data(), inv_m.data(), inv_i.data()};
  }
  double energy() const {
    double e = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
      e += 0.5 * m[i] * v[i].squaredNorm() + 0.5 * w[i].dot(world_inertia(q[i], inertia[i]) * w[i]);
    return e;
  }
  Vec3 momentum() const {
    Vec3 p = Vec3::Zero();
    for (std::size_t i = 0; i < v.size(); ++i) p += m[i] * v[i];
    return p;
  }
  /// Scale for relative momentum errors: sum of |m v|.
  double momentum_scale() const {
    double s = 0;
    for (std::size_t i = 0; i < v.size(); ++i) s += m[i] * v[i].norm();
    return s;
  }
  /// Angular momentum about the point `about`: sum of m (x - about) × v + I w.
  Vec3 angular_momentum(const Vec3& about = Vec3::Zero()) const {
    Vec3 l = Vec3::Zero();
    for (std::size_t i = 0; i < v.size(); ++i)
      l += m[i] * (x[i] - about).cross(v[i]) + world_inertia(q[i], inertia[i]) * w[i];
    return l;
  }
  double angular_momentum_scale() const {
    double s = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
      s += m[i] * x[i].norm() * v[i].norm() + (world_inertia(q[i], inertia[i]) * w[i]).norm();
    return s;
  }
};

/// Appends the points of a narrow-phase manifold between island bodies a and b (-1: static) at
/// centres xa and xb as contacts with restitution e and friction mu.
inline void add_manifold_contacts(std::vector<Contact>& out, const Manifold& m, int a, int b,
                                  const Vec3& xa, const Vec3& xb, double e, double mu) {
  for (int k = 0; k < m.count; ++k) {
    Contact c;
    c.a = a;
    c.b = b;
    c.point = m.point[k];
    c.normal = m.normal;
    c.gap = m.gap[k];
    c.ra = c.point - xa;
    c.rb = c.point - xb;
    c.restitution = e;
    c.friction = mu;
    out.push_back(c);
  }
}

}  // namespace etdem::validation
