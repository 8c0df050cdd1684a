// The solve of one island alone (world/island_solve): the answer of a two-body impact, and the
// impulses returned to their own contacts whatever the serial order.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "etdem/solvers/etm.hpp"
#include "etdem/solvers/resting.hpp"
#include "etdem/world/island_solve.hpp"

namespace etdem {
namespace {

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

Contact make_contact(int a, int b, const Vec3& point, const Vec3& normal, double gap,
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

TEST(IslandSolve, ElasticHeadOnImpactOfEqualSpheresSwapsVelocities) {
  // Newton's cradle of two: equal masses, e = 1, no friction, no gravity: A and B exchange
  // their velocities, momentum and energy are kept; the impact at gap / closing speed.
  TwoSpheres s(2);
  s.x[0] = Vec3(0, 0, 0.2 + 1e-3);
  s.x[1] = Vec3(0, 0, 0);
  s.v[0] = Vec3(0, 0, -1.0);
  s.v[1] = Vec3(0, 0, 0.25);
  std::vector<Contact> contacts = {
      make_contact(0, 1, Vec3(0, 0, 0.1005), Vec3::UnitZ(), 1e-3, s.x[0], s.x[1], 1.0)};
  EtmSolver etm(EtmSettings{});
  etm.prepare(1);
  IslandSolve unit;
  unit.prepare(1);
  const double h = 1e-3;
  const IslandSolution r =
      unit.solve(IslandSolveSettings{h, Vec3::Zero(), 0.0}, etm, nullptr, s.state(), contacts, 0);
  EXPECT_EQ(r.collisions, 1);
  EXPECT_NEAR(s.v[0].z(), 0.25, 1e-6);
  EXPECT_NEAR(s.v[1].z(), -1.0, 1e-6);
  EXPECT_NEAR(s.v[0].z() + s.v[1].z(), -0.75, 1e-12);  // momentum
  // Closing at 1.25 m/s over a 1 mm gap: the impact after 0.8 ms, within the 1 ms step.
  EXPECT_NEAR(s.toi[0], 0.8e-3, 1e-12);
  EXPECT_NEAR(s.toi[1], 0.8e-3, 1e-12);
  EXPECT_EQ(r.kick, 0.0);  // no gravity to split
  EXPECT_NEAR(r.stats.dissipated_restitution + r.stats.dissipated_friction, 0.0, 1e-9);
}

TEST(IslandSolve, ImpulsesReturnToTheirOwnContactsWhateverTheSerialOrder) {
  // Sphere 0 rests on a static floor (a slow contact); sphere 1 falls onto it at 2 m/s (a
  // collision). Whichever comes first in the serial order, the solve order is the same
  // (collisions first): the velocities must be the same bits and each impulse must come back
  // on its own contact. Physically: ETM resolves the impact, the resting pass then holds both
  // spheres on the floor: neither moves into what is below it.
  const double h = 1e-3, g = 9.81;
  auto run = [&](bool floor_first, std::vector<Contact>& out, TwoSpheres& s) {
    s.x[0] = Vec3(0, 0, 0.1);
    s.x[1] = Vec3(0, 0, 0.3);
    s.v[0] = Vec3(0, 0, -g * h);  // this step's gravity kick, before the solve
    s.v[1] = Vec3(0, 0, -2.0 - g * h);
    const Contact floor =
        make_contact(0, -1, Vec3(0, 0, 0), Vec3::UnitZ(), 0.0, s.x[0], Vec3::Zero(), 0.5);
    const Contact impact =
        make_contact(1, 0, Vec3(0, 0, 0.2), Vec3::UnitZ(), 0.0, s.x[1], s.x[0], 0.5);
    out = floor_first ? std::vector<Contact>{floor, impact} : std::vector<Contact>{impact, floor};
    EtmSolver etm(EtmSettings{});
    etm.prepare(1);
    RestingSettings rs;
    rs.dt = h;
    rs.gravity = Vec3(0, 0, -g);
    rs.slip_velocity = 0.1;
    RestingSolver resting(rs);
    resting.prepare(1);
    IslandSolve unit;
    unit.prepare(1);
    return unit.solve(IslandSolveSettings{h, Vec3(0, 0, -g), 0.1}, etm, &resting, s.state(), out,
                      0);
  };
  TwoSpheres a(2), b(2);
  std::vector<Contact> ca, cb;
  const IslandSolution ra = run(true, ca, a);
  const IslandSolution rb = run(false, cb, b);
  EXPECT_EQ(ra.collisions, 1);  // only the fast contact
  EXPECT_EQ(rb.collisions, 1);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(a.v[i], b.v[i]) << "sphere " << i;
  EXPECT_EQ(ca[0].normal_impulse, cb[1].normal_impulse);  // the floor contact
  EXPECT_EQ(ca[1].normal_impulse, cb[0].normal_impulse);  // the impact
  EXPECT_GT(ca[0].normal_impulse, 0.0);
  EXPECT_GT(ca[1].normal_impulse, 0.0);
  EXPECT_NE(ca[0].normal_impulse, ca[1].normal_impulse);  // so a swap would show
  EXPECT_GE(a.v[0].z(), -1e-9);                           // nothing moves into the floor
  EXPECT_GE(a.v[1].z() - a.v[0].z(), -1e-9);              // nor into sphere 0
  // The impact lost energy (e = 0.5), none was created.
  EXPECT_GT(ra.stats.dissipated_restitution, 0.0);
  EXPECT_GE(ra.resting_stats.dissipated_restitution + ra.resting_stats.dissipated_friction, -1e-12);
}

}  // namespace
}  // namespace etdem
