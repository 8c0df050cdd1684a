// Resting contact (F11): a poured pile comes to rest without jitter or creep, with bounded
// penetration, and the energy ledger still closes.
#include <gtest/gtest.h>

#include "test_world_fixture.hpp"

namespace etdem::test {
namespace {

// Two fill seeds: the creep is set by one or two surface grains rolling (spheres have no rolling
// resistance), which a single pile has or has not by chance. Measured (seeds 21, 5, 6, 7; 0.5 s
// at rest): 1-8 grains moved more than 1 % of d, the farthest 0.16-1.4 mm, the fastest
// 0.3-2.8 mm/s; with the shock pass's friction dropped instead of taken against the grain's own
// slip (before), seed 6 rolled 1.36 mm and seed 21 0.16 mm; after, 0.31 and 1.40 mm.
class Resting : public ::testing::TestWithParam<unsigned> {};

TEST_P(Resting, PouredPileSettlesWithoutCreepAndWithSmallPenetration) {
  TestWorld t(0.5, 0.5);
  t.world.settings.gravity = Vec3(0, 0, -9.81);
  const double r = 0.005, d = 2 * r;
  t.add_container(Vec3(0, 0, 0), Vec3(0.12, 0.06, 1));
  fill_spheres(t, 10, 5, 6, r, 0.012, Vec3(0, 0, 0), 0.0, GetParam(), 0.3);
  t.world.initialize();
  t.simulate(3.0);  // fall and settle
  std::vector<Vec3> settled = t.world.bodies.position;
  double worst_pen = 0.0, worst_speed = 0.0;
  for (int k = 0; k < 300; ++k) {  // 0.5 s at rest
    t.world.step();
    worst_pen = std::max(worst_pen, t.world.last_step().max_penetration);
    for (int i = 0; i < t.world.bodies.count(); ++i)
      if (t.world.bodies.is_dynamic(i))
        worst_speed = std::max(worst_speed, t.world.bodies.velocity[i].norm());
  }
  double creep = 0.0;
  int moving = 0;
  for (int i = 0; i < t.world.bodies.count(); ++i) {
    if (!t.world.bodies.is_dynamic(i)) continue;
    const double moved = (t.world.bodies.position[i] - settled[i]).norm();
    creep = std::max(creep, moved);
    if (moved > 0.01 * d) ++moving;
  }
  std::printf("grains that moved more than 1 %% of d: %d of 300\n", moving);
  std::printf("settled pile: max penetration %.3e m (%.2f %% of d), max speed %.3e m/s, creep %.3e m\n",
              worst_pen, 100 * worst_pen / d, worst_speed, creep);
  EXPECT_LT(worst_pen, 0.01 * d);  // issue target: below 1 % of the diameter (measured 0.01 %)
  // The bulk is at rest: at most 3 % of the grains move more than 1 % of d in 0.5 s (grains
  // still rolling on the surface), none more than 20 % of d (measured up to 1.4 mm, above).
  // Jitter would move every grain, by g dt^2 ~ 3e-5 m a step.
  EXPECT_LE(moving, 9);
  EXPECT_LT(creep, 0.2 * d);
  // Jitter would show as speeds of order g dt = 0.016 m/s every step; the slow relaxation above
  // moves the fastest grain at 0.5-2 mm/s depending on round-off (measured).
  EXPECT_LT(worst_speed, 5e-3);
  EXPECT_LT(std::abs(t.world.ledger().residual()), 1e-9 * t.world.ledger().initial);
}

INSTANTIATE_TEST_SUITE_P(Seeds, Resting, ::testing::Values(21u, 6u));

TEST(RestingContacts, ImpulsesAreRememberedOnTheirOwnContacts) {
  // Sphere A rests on the floor touching B beside it; C falls fast onto A. In contact order the
  // side contact A-B comes before the collision A-C, while the island puts collisions first:
  // the impulses kept for the next step's warm start must go back to the contacts they belong to.
  TestWorld t(0.5, 0.5);
  t.world.settings.gravity = Vec3(0, 0, -9.81);
  const double r = 0.01;
  t.add_floor();
  t.add_sphere(r, Vec3(0, 0, r));
  t.add_sphere(r, Vec3(2 * r, 0, r));
  t.add_sphere(r, Vec3(0, 0, 3 * r + 0.001), Vec3(0, 0, -3.0));
  t.world.initialize();
  t.world.step();
  int checked = 0;
  for (const Contact& c : t.world.contacts()) {
    if (std::abs(c.normal.z()) < 1e-9) {  // the side contact A-B carries no load
      EXPECT_LT(std::abs(c.normal_impulse), 1e-9);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 1);
}

}  // namespace
}  // namespace etdem::test
