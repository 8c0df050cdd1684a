// A body moves with its velocity before the solve until its time of impact and with the new one
// after (World::displacement). Two spheres fall side by side and a little apart, so their
// contact does not approach; the lower one lands on the floor early in the step and the solve
// stops both. The upper one also nears a side wall, whose contact would close late in the step:
// carried by its old velocity until then, it sank into the lower one by most of |v| dt (0.91 mm
// here, 9 % of the diameter, and the lower one 0.16 mm into the floor) where the solve left the
// pair touching. Its impact time is
// cleared (IslandSolve, hold_impact_times): the pair ends where the solve put it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "test_world_fixture.hpp"

namespace etdem::test {
namespace {

struct Pair {
  double gap_ab = 0.0;     // [m] surface gap of the two spheres after one step
  double gap_floor = 0.0;  // [m] the lower sphere's gap to the floor
  double residual = 0.0;   // [J] the ledger's unexplained energy
  double scale = 0.0;      // [J] the kinetic energy before the step
};

/// One step of the two spheres, the upper one `gap` above the lower along their line of centres.
Pair one_step(double gap) {
  TestWorld t(0.0, 0.0);
  const double r = 0.005, dt = 1.0 / 600.0;
  t.world.settings.gravity = Vec3(0, 0, -9.81);
  t.world.settings.dt = dt;
  t.world.settings.projection = 0.0;  // the depth the motion leaves, uncorrected
  t.add_floor();
  const Vec3 v(0.1, 0.0, -1.0);
  const double offset = 0.003;  // the upper sphere's centre is 3 mm to +x of the lower's
  const double dz = std::sqrt(std::pow(2.0 * r + gap, 2) - offset * offset);
  const Vec3 xa(0.0, 0.0, r + 2e-4);  // lands after about a tenth of the step
  const Vec3 xb = xa + Vec3(offset, 0.0, dz);
  // The wall 0.15 mm from the upper sphere: at 0.1 m/s it closes at 0.9 of the step.
  t.add_plane(Vec3(xb.x() + r + 1.5e-4, 0, 0), -Vec3::UnitX());
  const int a = t.add_sphere(r, xa, v);
  const int b = t.add_sphere(r, xb, v);
  t.world.initialize();
  Pair p;
  p.scale = t.kinetic();
  t.world.step();
  const World& w = t.world;
  p.gap_ab = (w.bodies.position[b] - w.bodies.position[a]).norm() - 2.0 * r;
  p.gap_floor = w.bodies.position[a].z() - r;
  p.residual = w.ledger().residual();
  return p;
}

TEST(ImpactTime, ANeighbourStoppedAtTheStartIsNotEnteredWithTheOldVelocity) {
  const double dt = 1.0 / 600.0, g = 9.81;
  for (const double gap : {1e-4, 0.0}) {
    const Pair p = one_step(gap);
    std::printf("gap %.1e m: after the step the pair's gap %.3e m, the floor's %.3e m\n", gap,
                p.gap_ab, p.gap_floor);
    // What the solve promised (touching or apart) up to the gravity pieces of the update
    // (g dt^2 = 2.7e-5 m); the old velocity for most of the step gave -9.1e-4 m.
    EXPECT_GT(p.gap_ab, -g * dt * dt) << "gap " << gap;
    EXPECT_GT(p.gap_floor, -g * dt * dt) << "gap " << gap;
    EXPECT_LT(std::abs(p.residual), 1e-12 * p.scale) << "gap " << gap;
  }
}

}  // namespace
}  // namespace etdem::test
