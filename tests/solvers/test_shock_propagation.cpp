// The resting pass's shock propagation (solvers/resting_shock.cpp) on hand-built contacts: a
// grain settled on supports held fixed stops approaching all of them, sticks where friction can
// hold it, slides where it cannot, lets a contact close up to `shock_depth` and stops only the
// approach beyond, and the pass never raises a body's kinetic energy.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "etdem/solvers/resting.hpp"

namespace etdem::test {
namespace {

constexpr double kR = 0.005, kMass = 1.3e-3, kDt = 1.0 / 600.0;
const Vec3 kGravity(0, 0, -9.81);

/// One sphere (radius kR) and its contacts with static supports below it; the settings leave
/// the shock-propagation pass alone to act (no Gauss-Seidel sweep).
struct Grain {
  Vec3 v, w{0, 0, 0};
  double inv_mass = 1.0 / kMass;
  Mat3 inv_inertia = Mat3::Identity() / (0.4 * kMass * kR * kR);
  std::vector<Contact> contacts;

  /// A static support touching the sphere at the point in direction -n from its centre (n: unit,
  /// from the support to the sphere).
  void support(const Vec3& n, double mu) {
    Contact c;
    c.a = 0;
    c.b = -1;
    c.normal = n.normalized();
    c.ra = -kR * c.normal;
    c.point = c.ra;
    c.friction = mu;
    contacts.push_back(c);
  }
  double kinetic() const {
    return 0.5 * v.squaredNorm() / inv_mass + 0.5 * w.dot(inv_inertia.inverse() * w);
  }
  Vec3 point_velocity(const Contact& c) const { return v + w.cross(c.ra); }
  /// The shock pass alone: no sweep, and no closing round (`approach_tolerance` = 1: only a
  /// contact closing by its whole lever within the step would be swept again). shock_depth 0:
  /// the pass stops any approach.
  SolverStats settle(double shock_depth = 0.0) {
    RestingSettings s;
    s.iterations = 0;
    s.approach_tolerance = 1.0;
    s.shock_depth = shock_depth;
    RestingPass solver(s);
    solver.set_step({kDt, kGravity});
    solver.prepare(1);
    IslandBodies b;
    b.count = 1;
    b.v = &v;
    b.w = &w;
    b.inv_mass = &inv_mass;
    b.inv_inertia = &inv_inertia;
    return solver.resolve(contacts, b, 0);
  }
};

Vec3 tilted(double deg, double azimuth_deg) {
  const double t = deg * M_PI / 180.0, p = azimuth_deg * M_PI / 180.0;
  return Vec3(std::sin(t) * std::cos(p), std::sin(t) * std::sin(p), std::cos(t));
}

TEST(ShockPropagation, GrainInAPocketOfThreeStopsApproachingEveryOne) {
  // A sphere falling at g dt into the pocket of three supports tilted 35 deg: settling one
  // support pushes the grain sideways into the other two, so one impulse per contact is not
  // enough; the body's own small solve leaves none approaching (to 1e-3 of g dt).
  for (double mu : {0.0, 0.5}) {
    Grain g;
    g.v = Vec3(0.002, -0.001, -9.81 * kDt);
    for (double az : {0.0, 120.0, 240.0}) g.support(tilted(35.0, az), mu);
    const double k0 = g.kinetic();
    const SolverStats st = g.settle();
    for (const Contact& c : g.contacts)
      EXPECT_GT(c.normal.dot(g.point_velocity(c)), -1e-3 * 9.81 * kDt) << "mu " << mu;
    EXPECT_LE(g.kinetic(), k0 * (1 + 1e-12)) << "mu " << mu;
    EXPECT_EQ(st.shock_bound_reached, 0);
    if (mu > 0.0) {  // friction holds the grain in the pocket: it stops
      EXPECT_LT(g.v.norm(), 1e-3 * 9.81 * kDt);
      EXPECT_LT(g.w.norm() * kR, 1e-3 * 9.81 * kDt);
    }
  }
}

TEST(ShockPropagation, FrictionHoldsAGrainOnATiltedSupportAndLetsItSlideBeyondTanTheta) {
  // One support tilted 20 deg, the grain falling at u = g dt. The normal impulse alone stops
  // u cos 20 and leaves u sin 20 of slip down the tangent plane (the pass was frictionless and
  // left it: the grain slid a little every step). With mu = 0.5 the contact point sticks: its
  // velocity is zero. A sphere's point sticks through a tangential impulse of (2/7) m u sin 20
  // (K_t = 3.5 / m), which mu = 0.1 < (2/7) tan 20 = 0.104 cannot give: the point then slides
  // at u sin 20 - 3.5 mu u cos 20.
  const double u = 9.81 * kDt, th = 20.0 * M_PI / 180.0;
  for (double mu : {0.5, 0.1}) {
    Grain g;
    g.v = Vec3(0, 0, -u);
    g.support(tilted(20.0, 0.0), mu);
    const double k0 = g.kinetic();
    g.settle();
    const Contact& c = g.contacts[0];
    const Vec3 pv = g.point_velocity(c);
    EXPECT_NEAR(c.normal.dot(pv), 0.0, 1e-12);
    const double slip = (pv - c.normal.dot(pv) * c.normal).norm();
    const double expected = mu == 0.5 ? 0.0 : u * std::sin(th) - 3.5 * mu * u * std::cos(th);
    EXPECT_NEAR(slip, expected, 1e-9) << "mu " << mu;
    EXPECT_LE(g.kinetic(), k0 * (1 + 1e-12)) << "mu " << mu;
  }
}

TEST(ShockPropagation, NeverLiftsAGrainOffARisingSupport) {
  // A support that rises at 1 m/s (a tumbling grain's corner) under a grain at rest: holding
  // the support fixed and matching its speed would lift the grain with work nobody pays for.
  // The pass leaves it alone: no impulse, no energy.
  Grain g;
  g.v = Vec3::Zero();
  g.support(Vec3(0, 0, 1), 0.5);
  // The support is dynamic here: body 1, infinitely heavy for the pass.
  Contact& c = g.contacts[0];
  c.b = 1;
  c.rb = Vec3(0, 0, 0.01);
  std::vector<Vec3> v = {g.v, Vec3(0, 0, 1.0)}, w = {g.w, Vec3::Zero()};
  std::vector<double> im = {g.inv_mass, 1.0 / kMass};
  std::vector<Mat3> ii = {g.inv_inertia, g.inv_inertia};
  RestingSettings s;
  s.iterations = 0;
  RestingPass solver(s);
  solver.set_step({kDt, kGravity});
  solver.prepare(1);
  IslandBodies b{2, v.data(), w.data(), im.data(), ii.data()};
  const SolverStats st = solver.resolve(g.contacts, b, 0);
  EXPECT_EQ(v[0], Vec3::Zero());
  EXPECT_EQ(w[0], Vec3::Zero());
  EXPECT_EQ(v[1], Vec3(0, 0, 1.0));
  EXPECT_EQ(st.dissipated_restitution, 0.0);
}

TEST(ShockPropagation, LetsAContactCloseUpToShockDepthAndStopsTheApproachBeyond) {
  // A grain on the floor (gap 0), falling at u. With shock_depth f the pass lets the contact
  // close by f R within the step: an approach u dt <= f R is left exactly as it is, a faster one
  // is cut to f R / dt. A contact already deeper than f R is stopped (its room is 0); a gap g > 0
  // adds g / dt (the speculative contact).
  const double f = 0.01, room = f * kR / kDt;  // 0.03 m/s
  struct Case {
    double u, gap, expected;  // approach speed, gap, the contact's normal velocity after
  };
  const Case cases[] = {
      {0.5 * room, 0.0, -0.5 * room},            // within the room: untouched
      {3.0 * room, 0.0, -room},                  // beyond: cut to the room
      {3.0 * room, -2.0 * f * kR, 0.0},          // already deeper than the room: stopped
      {3.0 * room, -0.5 * f * kR, -0.5 * room},  // half the room used: the other half left
      {3.0 * room, 1e-5, -room - 1e-5 / kDt},    // a gap: room + gap / dt
  };
  for (const Case& k : cases) {
    for (double mu : {0.0, 0.5}) {
      Grain g;
      g.v = Vec3(0, 0, -k.u);
      g.support(Vec3(0, 0, 1), mu);
      g.contacts[0].gap = k.gap;
      const double k0 = g.kinetic();
      g.settle(f);
      EXPECT_NEAR(g.v.z(), k.expected, 1e-12 * room) << "u " << k.u << " gap " << k.gap;
      EXPECT_EQ(g.v.x(), 0.0);
      EXPECT_EQ(g.w, Vec3::Zero());
      EXPECT_LE(g.kinetic(), k0 * (1 + 1e-12));
    }
  }
  // shock_depth 0 stops every approach of a touching contact.
  Grain g;
  g.v = Vec3(0, 0, -0.5 * room);
  g.support(Vec3(0, 0, 1), 0.5);
  g.settle(0.0);
  EXPECT_NEAR(g.v.z(), 0.0, 1e-15);
}

}  // namespace
}  // namespace etdem::test
