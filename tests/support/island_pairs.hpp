// Island-local arrays of unit spheres and the contacts between them, written down directly:
// the island solve's and the collision groups' tests (world/).
#pragma once

#include <vector>

#include "etdem/collision/contact.hpp"
#include "etdem/core/math.hpp"
#include "etdem/world/island_solve.hpp"

namespace etdem::test {

struct TwoSpheres : IslandArrays {  // island-local arrays of n spheres of 1 kg, radius 0.1 m
  explicit TwoSpheres(int n) {
    v.assign(n, Vec3::Zero());
    w.assign(n, Vec3::Zero());
    x.assign(n, Vec3::Zero());
    v0.assign(n, Vec3::Zero());
    inv_mass.assign(n, 1.0);
    toi.assign(n, -1.0);
    inv_inertia.assign(n, Mat3::Identity() / (0.4 * 0.01));
  }
  IslandState state() { return IslandArrays::state(0, static_cast<int>(v.size())); }
};

/// A contact between spheres a and b (b = -1: a wall) at `point`, along `normal`, with its gap,
/// the arms from the centres xa and xb, restitution e and no friction.
inline Contact make_contact(int a, int b, const Vec3& point, const Vec3& normal, double gap,
                            const Vec3& xa, const Vec3& xb, double e) {
  Contact c;
  c.a = a;
  c.b = b;
  c.point = point;
  c.normal = normal;
  c.gap = gap;
  c.ra = point - xa;
  c.rb = b >= 0 ? Vec3(point - xb) : Vec3::Zero();
  c.restitution = e;
  c.friction = 0.0;
  return c;
}

/// n pairs of spheres in one island, far apart: pair k is spheres 2k (above) and 2k + 1, closing
/// head-on along z at its own speed, with a sideways slip and its own restitution; mu = 0.3.
struct Pairs : TwoSpheres {
  std::vector<Contact> contacts;
  explicit Pairs(int n) : TwoSpheres(2 * n) {
    for (int k = 0; k < n; ++k) {
      const int a = 2 * k, b = 2 * k + 1;
      x[a] = Vec3(1.0 * k, 0, 0.2 + 1e-4);
      x[b] = Vec3(1.0 * k, 0, 0);
      v[a] = Vec3(0.2 * (k % 5), 0, -(1.0 + k % 7));
      v[b] = Vec3(0, 0, 0.1 * (k % 3));
      Contact c = make_contact(a, b, Vec3(1.0 * k, 0, 0.10005), Vec3::UnitZ(), 1e-4, x[a], x[b],
                               0.5 + 0.5 * (k % 2));
      c.friction = 0.3;
      contacts.push_back(c);
    }
  }
};

}  // namespace etdem::test
