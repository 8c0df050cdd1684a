// Hand-built islands of spheres for the multiple-impact cases (validation/cases.hpp, the LZB
// tests): balls with mass and radius, plain contacts
// between touching balls, and any etdem::Solver run on them. Chains lie along x with contact
// normals along x; planar systems (Bernoulli's three balls, four-ball rings) use the same builder.
#pragma once

#include <cmath>
#include <span>
#include <vector>

#include "etdem/collision/contact.hpp"
#include "etdem/solvers/impulse.hpp"
#include "etdem/solvers/solver.hpp"

namespace etdem::validation {

struct Balls {
  // Per ball (length = count()).
  std::vector<Vec3> x;            // centre [m]
  std::vector<Vec3> v;            // [m/s]
  std::vector<Vec3> w;            // [rad/s]
  std::vector<double> mass;       // [kg]
  std::vector<double> radius;     // [m]
  std::vector<double> inv_mass;   // [1/kg]
  std::vector<Mat3> inv_inertia;  // world frame [1/(kg m^2)]
  std::vector<Contact> contacts;

  int count() const { return static_cast<int>(x.size()); }

  /// A solid sphere (I = 2/5 m r^2).
  int add_ball(double m, double r, const Vec3& pos, const Vec3& vel = Vec3::Zero()) {
    x.push_back(pos);
    v.push_back(vel);
    w.push_back(Vec3::Zero());
    mass.push_back(m);
    radius.push_back(r);
    inv_mass.push_back(1.0 / m);
    inv_inertia.push_back(Mat3::Identity() / (0.4 * m * r * r));
    return count() - 1;
  }

  /// A contact between balls a and b at the point between their surfaces; the normal points
  /// from b to a (contact.hpp). The balls are expected to touch.
  Contact& touch(int a, int b, double restitution = 1.0, double stiffness = 1.0) {
    Contact c;
    c.a = a;
    c.b = b;
    c.normal = (x[a] - x[b]).normalized();
    c.gap = (x[a] - x[b]).norm() - radius[a] - radius[b];
    c.point = x[b] + (radius[b] + 0.5 * c.gap) * c.normal;
    c.ra = c.point - x[a];
    c.rb = c.point - x[b];
    c.restitution = restitution;
    c.friction = 0.0;
    c.stiffness = stiffness;
    contacts.push_back(c);
    return contacts.back();
  }

  IslandBodies view() { return {count(), v.data(), w.data(), inv_mass.data(), inv_inertia.data()}; }

  SolverStats solve(Solver& solver) {
    solver.prepare(1);
    IslandBodies b = view();
    return solver.resolve(std::span<Contact>(contacts), b, 0);
  }

  Vec3 momentum() const {
    Vec3 p = Vec3::Zero();
    for (int i = 0; i < count(); ++i) p += mass[i] * v[i];
    return p;
  }
  double kinetic() const {
    double e = 0.0;
    for (int i = 0; i < count(); ++i)
      e += 0.5 * mass[i] * v[i].squaredNorm() + 0.5 * w[i].dot(inv_inertia[i].inverse() * w[i]);
    return e;
  }
  /// u_n of contact k (negative approaching).
  double normal_velocity(int k) {
    IslandBodies b = view();
    return contacts[k].normal.dot(impulse::relative_velocity(contacts[k], b));
  }
};

/// A chain of touching balls along x, ball 0 leftmost; contact k joins balls k and k+1 with its
/// normal along +x (A = ball k+1, B = ball k), so u_n = v_{k+1} - v_k.
/// restitution and stiffness per contact (size masses - 1), or one value for all.
inline Balls chain(const std::vector<double>& masses, const std::vector<double>& velocities,
                   const std::vector<double>& restitution, const std::vector<double>& stiffness,
                   double radius = 0.01) {
  Balls balls;
  const int n = static_cast<int>(masses.size());
  for (int i = 0; i < n; ++i)
    balls.add_ball(masses[i], radius, Vec3(2.0 * radius * i, 0, 0),
                   Vec3(i < static_cast<int>(velocities.size()) ? velocities[i] : 0.0, 0, 0));
  auto pick = [](const std::vector<double>& v, int k) { return v.size() == 1 ? v[0] : v.at(k); };
  for (int k = 0; k + 1 < n; ++k) balls.touch(k + 1, k, pick(restitution, k), pick(stiffness, k));
  return balls;
}

/// Bernoulli's problem (LZB 2009 §4, Fig. 5) in the xy-plane: ball B2 (index 1) at the origin
/// moving along +x at v0 into B1 (index 0) and B3 (index 2), which touch it at +alpha and -alpha
/// from the x-axis. Contact 0 joins B1 and B2 (P1, normal (cos a, sin a)), contact 1 joins B3 and
/// B2 (P2, normal (cos a, -sin a)). Unit masses as in the paper's examples unless given.
inline Balls bernoulli(double alpha, double e1, double e2, double v0 = 1.0,
                       const std::vector<double>& masses = {1.0, 1.0, 1.0}, double radius = 0.5) {
  Balls b;
  const double d = 2.0 * radius;
  b.add_ball(masses[0], radius, Vec3(d * std::cos(alpha), d * std::sin(alpha), 0));
  b.add_ball(masses[1], radius, Vec3::Zero(), Vec3(v0, 0, 0));
  b.add_ball(masses[2], radius, Vec3(d * std::cos(alpha), -d * std::sin(alpha), 0));
  b.touch(0, 1, e1);
  b.touch(2, 1, e2);
  return b;
}

/// The planar four-ball system of LZB 2009 §4c (Figs. 9-10): identical balls, B2 (index 1) at
/// the origin, B1 (0) and B3 (2) at +-alpha from the x-axis, B4 (3) on the x-axis beyond them,
/// the half-angle at B2 being alpha. Contacts in the paper's order: 0: B1-B2 (P1), 1: B2-B3 (P2),
/// 2: B3-B4 (P3), 3: B4-B1 (P4), and where the balls touch, 4: B2-B4 (P5, alpha = pi/3) or
/// B1-B3 (alpha = pi/6). B2 and B4 move along x at v2 and v4.
inline Balls four_balls(double alpha, double v2, double v4, double restitution = 1.0,
                        double radius = 0.5) {
  Balls b;
  const double d = 2.0 * radius, c = std::cos(alpha), s = std::sin(alpha);
  b.add_ball(1.0, radius, Vec3(d * c, d * s, 0));
  b.add_ball(1.0, radius, Vec3::Zero(), Vec3(v2, 0, 0));
  b.add_ball(1.0, radius, Vec3(d * c, -d * s, 0));
  b.add_ball(1.0, radius, Vec3(2.0 * d * c, 0, 0), Vec3(v4, 0, 0));
  b.touch(0, 1, restitution);
  b.touch(2, 1, restitution);
  b.touch(3, 2, restitution);
  b.touch(0, 3, restitution);
  const double tol = 1e-9 * d;
  if (std::abs(2.0 * d * c - d) < tol) b.touch(3, 1, restitution);  // B2-B4 at alpha = pi/3
  if (std::abs(2.0 * d * s - d) < tol) b.touch(0, 2, restitution);  // B1-B3 at alpha = pi/6
  return b;
}

}  // namespace etdem::validation
