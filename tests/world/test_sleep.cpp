// Sleep. By islands (world/sleep.cpp): a pile at rest stops being solved and stops moving, wakes
// whole when a moving body joins it, never changes the motion of a body that has not yet
// reached it, keeps the ledger closed and gives the same bits on any number of threads. By
// regions (world/sleep_regions.cpp): the same for a pile at rest; the settled parts of a pile
// sleep while its edge flows; an impact wakes the regions it loads, which settle again.
#include <gtest/gtest.h>

#include <cmath>

#include "test_world_fixture.hpp"

namespace etdem::test {
namespace {

constexpr double kR = 0.005;  // [m] grain radius

/// A 4 x 4 x 3 lattice of 1 cm spheres dropped into a 4 x 4 cm box (e = 0.3, mu = 0.5), and,
/// when `ball`, one more sphere thrown up at 3 m/s above the middle: it comes down onto the pile
/// at about 3.7 m/s after 0.7 s, when the pile has long been asleep.
struct Pile {
  TestWorld t{0.3, 0.5};
  int ball = -1;
  explicit Pile(double sleep_velocity, bool with_ball = false, int threads = 1,
                SleepUnit unit = SleepUnit::kIsland) {
    World& w = t.world;
    w.settings.sleep_unit = unit;
    w.settings.gravity = Vec3(0, 0, -9.81);
    w.settings.dt = 1.0 / 600.0;
    w.settings.threads = threads;
    w.settings.sleep_velocity = sleep_velocity;
    w.settings.sleep_time = 0.2;
    t.add_container(Vec3(0, 0, 0), Vec3(0.04, 0.04, 1.0));
    fill_spheres(t, 4, 4, 3, kR, 0.0102, Vec3(0, 0, 0.0005), 0.0, 7, 0.2);
    if (with_ball) ball = t.add_sphere(kR, Vec3(0.02, 0.02, 0.3), Vec3(0, 0, 3.0));
    w.initialize();
  }
  int asleep() const {
    int n = 0;
    for (int i = 0; i < t.world.bodies.count(); ++i) n += t.world.bodies.is_asleep(i) ? 1 : 0;
    return n;
  }
};

double relative_residual(const World& w) {
  const EnergyLedger& l = w.ledger();
  return std::abs(l.residual()) / std::max(1e-300, std::abs(l.initial));
}

TEST(Sleep, PileAtRestFallsAsleepAndHoldsStill) {
  Pile p(0.01);
  World& w = p.t.world;
  p.t.simulate(1.5);
  ASSERT_EQ(p.asleep(), 48) << "the settled pile sleeps";
  EXPECT_GE(w.totals().fell_asleep, 1);
  const std::uint64_t h = p.t.state_hash();
  const long solved = w.totals().resting.iterations;
  p.t.simulate(0.5);
  EXPECT_EQ(p.t.state_hash(), h) << "a sleeping pile does not move at all";
  EXPECT_EQ(w.totals().resting.iterations, solved) << "nor is it solved";
  EXPECT_GE(w.totals().asleep_steps, 290);
  // Falling asleep set at most half m v_sleep^2 per grain to zero, booked as damping.
  const double m = w.bodies.mass[w.bodies.count() - 1];
  EXPECT_LE(w.totals().sleep_energy, 48 * 0.5 * m * 0.01 * 0.01 * 4.0);
  EXPECT_LT(relative_residual(w), 1e-12);
}

TEST(Sleep, MachineryChangesNothingUntilAnIslandSleeps) {
  // Sleeping on with a bound nothing reaches (every step of the pour is moving faster than
  // 1e-9 m/s somewhere): rest times, the narrow phase's records and the copy of sleeping pairs
  // all run, and the trajectory is the one without sleeping, bit for bit.
  Pile off(0.0), on(1e-9);
  on.t.world.settings.sleep_time = 0.01;
  for (int k = 0; k < 300; ++k) {
    off.t.steps(1);
    on.t.steps(1);
    ASSERT_EQ(on.asleep(), 0) << k;
  }
  EXPECT_EQ(off.t.state_hash(), on.t.state_hash());
  EXPECT_EQ(off.t.world.ledger().damping, on.t.world.ledger().damping);
}

TEST(Sleep, BallWakesThePileAndIsStopped) {
  // The ball comes down onto the sleeping pile: until it comes near, its motion is exactly
  // that of the same run without sleeping; then the pile wakes whole and stops it.
  Pile sleeping(0.01, true), awake(0.0, true);
  World& w = sleeping.t.world;
  const int ball = sleeping.ball;
  long steps = 0;
  bool woke = false;
  double approach = 0.0;  // [m/s] the ball's vertical velocity before the step it joined
  for (; steps < 1200 && !woke; ++steps) {
    approach = w.bodies.velocity[ball].z();
    sleeping.t.steps(1);
    awake.t.steps(1);
    woke = w.totals().woken > 0;
    if (!woke) {
      ASSERT_EQ(w.bodies.position[ball], awake.t.world.bodies.position[ball]) << steps;
      ASSERT_EQ(w.bodies.velocity[ball], awake.t.world.bodies.velocity[ball]) << steps;
    }
  }
  ASSERT_TRUE(woke) << "the ball reaches the pile";
  EXPECT_GT(w.totals().asleep_steps, 0) << "the pile slept before the ball came";
  EXPECT_EQ(sleeping.asleep(), 0) << "the island woke whole";
  // Woken in the step the ball arrives, fast, and stopped by the woken pile in that step as in
  // the run without sleeping.
  EXPECT_LT(approach, -3.0);
  EXPECT_GT(w.bodies.velocity[ball].z(), -1.0);
  EXPECT_GT(awake.t.world.bodies.velocity[ball].z(), -1.0);
  sleeping.t.simulate(1.0);
  double top = 0.0;
  for (int i = 0; i < w.bodies.count(); ++i)
    if (w.bodies.is_dynamic(i) && i != ball) top = std::max(top, w.bodies.position[i].z());
  EXPECT_GT(w.bodies.position[ball].z(), top - kR) << "the ball rests on the pile, not in it";
  EXPECT_LT(relative_residual(w), 1e-12);
  // And the pile goes back to sleep once everything is still again.
  EXPECT_EQ(sleeping.asleep(), 49);
}

TEST(Sleep, SameBitsOnOneAndTwoThreads) {
  Pile one(0.01, true, 1), two(0.01, true, 2);
  one.t.simulate(1.2);
  two.t.simulate(1.2);
  EXPECT_EQ(one.t.state_hash(), two.t.state_hash());
  EXPECT_EQ(one.t.world.totals().asleep_steps, two.t.world.totals().asleep_steps);
  EXPECT_EQ(one.t.world.ledger().damping, two.t.world.ledger().damping);
}

TEST(Sleep, CopiedContactsAreTheNarrowPhases) {
  // Sleeping pairs' contacts are copied from the last narrow phase instead of found again: the
  // same contacts and the same trajectory to the bit, through sleep, the ball's arrival and the
  // wake-up.
  Pile copied(0.01, true), found(0.01, true);
  found.t.world.reuse_sleeping_contacts = false;
  for (int k = 0; k < 720; ++k) {
    copied.t.steps(1);
    found.t.steps(1);
    const auto a = copied.t.world.contacts(), b = found.t.world.contacts();
    ASSERT_EQ(a.size(), b.size()) << k;
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a[i].point, b[i].point) << k;
      ASSERT_EQ(a[i].normal, b[i].normal) << k;
      ASSERT_EQ(a[i].gap, b[i].gap) << k;
      ASSERT_EQ(a[i].normal_impulse, b[i].normal_impulse) << k;
    }
  }
  EXPECT_EQ(copied.t.state_hash(), found.t.state_hash());
  EXPECT_GT(copied.t.world.totals().asleep_steps, 0);
  EXPECT_GT(copied.t.world.totals().woken, 0);
}

TEST(Sleep, RemovingTheFloorWakesThePile) {
  Pile p(0.01);
  World& w = p.t.world;
  p.t.simulate(1.2);
  ASSERT_EQ(p.asleep(), 48);
  int floor = -1;
  for (int i = 0; i < w.bodies.count(); ++i)
    if (w.bodies.name[i] == "floor") floor = i;
  ASSERT_GE(floor, 0);
  w.events.push_back({w.time() + 0.5 * w.settings.dt, floor});
  const int grain = floor + 5;  // the container's five planes come first
  ASSERT_TRUE(w.bodies.is_asleep(grain));
  const double z0 = w.bodies.position[grain].z();
  p.t.simulate(0.1);
  EXPECT_EQ(p.asleep(), 0);
  EXPECT_LT(w.bodies.position[grain].z(), z0 - 0.5 * 9.81 * 0.09 * 0.09) << "it falls freely";
}

// ---- Sleeping regions -------------------------------------------------------------------

TEST(SleepRegions, PileAtRestFallsAsleepAndHoldsStill) {
  Pile p(0.01, false, 1, SleepUnit::kRegion);
  World& w = p.t.world;
  p.t.simulate(1.5);
  ASSERT_EQ(p.asleep(), 48) << "the settled pile sleeps";
  // Regions of 2 cm (four 5 mm radii): the 4 x 4 cm pile, 3 cm high, spans 2 x 2 x 2 of them.
  EXPECT_GE(w.totals().fell_asleep, 4);
  const std::uint64_t h = p.t.state_hash();
  const long solved = w.totals().resting.iterations;
  p.t.simulate(0.5);
  EXPECT_EQ(p.t.state_hash(), h) << "a sleeping pile does not move at all";
  EXPECT_EQ(w.totals().resting.iterations, solved) << "nor is it solved";
  const double m = w.bodies.mass[w.bodies.count() - 1];
  EXPECT_LE(w.totals().sleep_energy, 48 * 0.5 * m * 0.01 * 0.01 * 4.0);
  EXPECT_LT(relative_residual(w), 1e-12);
}

/// A bed of 16 x 4 x `layers` 1 cm spheres in a box 4 cm wide and `length` long, from x = `x0`
/// (the long piles of the region tests). One layer lies in touching rows; two are dropped with
/// jitter into a box that fits them and settle into a disordered bed.
struct LongBed {
  TestWorld t{0.3, 0.5};
  explicit LongBed(int layers, double length, double x0 = 0.0, int threads = 1) {
    World& w = t.world;
    w.settings.gravity = Vec3(0, 0, -9.81);
    w.settings.dt = 1.0 / 600.0;
    w.settings.threads = threads;
    w.settings.sleep_velocity = 0.01;
    w.settings.sleep_time = 0.2;
    w.settings.sleep_unit = SleepUnit::kRegion;
    t.add_container(Vec3(0, 0, 0), Vec3(length, 0.041, 1.0));
    if (layers == 1)
      fill_spheres(t, 16, 4, 1, kR, 2 * kR, Vec3(x0, 0, 0), 0.0, 11);
    else
      fill_spheres(t, 16, 4, layers, kR, 0.0102, Vec3(x0, 0, 0.0005), 0.0, 11, 0.2);
  }
  int asleep(double x_from = -1.0) const {
    int n = 0;
    for (int i = 0; i < t.world.bodies.count(); ++i)
      n += t.world.bodies.is_asleep(i) && t.world.bodies.position[i].x() > x_from ? 1 : 0;
    return n;
  }
};

TEST(SleepRegions, SettledPartsSleepWhileTheEdgeFlows) {
  // A two-layer bed at one end of a long box slumps: its upper layer rolls off into the empty
  // floor for seconds. By islands, nothing sleeps while a grain of the pile moves; by regions,
  // the settled parts sleep while the edge still flows, and the ledger stays closed.
  for (const SleepUnit unit : {SleepUnit::kRegion, SleepUnit::kIsland}) {
    LongBed bed(2, 0.24);
    World& w = bed.t.world;
    w.settings.sleep_unit = unit;
    w.initialize();
    int most_asleep_while_flowing = 0;
    for (int k = 0; k < 15; ++k) {
      bed.t.simulate(0.1);
      double fastest = 0.0;
      for (int i = 0; i < w.bodies.count(); ++i)
        if (w.bodies.is_dynamic(i)) fastest = std::max(fastest, w.bodies.velocity[i].norm());
      if (fastest > 0.05) most_asleep_while_flowing = std::max(most_asleep_while_flowing, bed.asleep());
    }
    if (unit == SleepUnit::kRegion) {
      EXPECT_GE(most_asleep_while_flowing, 32) << "a quarter of the bed sleeps beside grains at 5 cm/s";
      EXPECT_GT(w.totals().woken, 0) << "and regions the flow reaches wake";
    } else {
      EXPECT_EQ(most_asleep_while_flowing, 0) << "one island: awake while any grain moves";
    }
    EXPECT_LT(relative_residual(w), 1e-12);
  }
}

TEST(SleepRegions, ABallLandingOnTheBedWakesItAndSettlesAgain) {
  // A ball thrown up over one end of the sleeping bed comes down on it at about 5.5 m/s: held
  // regions the impact loads wake (the solve taken again with them), the ball is stopped as by
  // the bed awake, and everything falls asleep again; the ledger stays closed.
  LongBed sleeping(2, 0.164), awake(2, 0.164);
  awake.t.world.settings.sleep_velocity = 0.0;
  int ball = -1;
  for (LongBed* b : {&sleeping, &awake}) {
    ball = b->t.add_sphere(kR, Vec3(0.02, 0.02, 0.3), Vec3(0, 0, 5.0));
    b->t.world.initialize();
  }
  World& w = sleeping.t.world;
  sleeping.t.simulate(1.0);
  awake.t.simulate(1.0);
  ASSERT_EQ(sleeping.asleep(), 128) << "the bed fell asleep before the ball came";
  sleeping.t.simulate(0.2);  // the ball lands at about 1.07 s
  awake.t.simulate(0.2);
  ASSERT_GT(w.totals().woken, 0) << "the ball reached the bed";
  EXPECT_GT(w.bodies.velocity[ball].z(), -1.0) << "and was stopped";
  EXPECT_GT(awake.t.world.bodies.velocity[ball].z(), -1.0) << "as by the bed awake";
  sleeping.t.simulate(1.5);
  EXPECT_EQ(sleeping.asleep(), 129) << "the ball and the bed fell asleep again";
  EXPECT_EQ(w.totals().sleep_wake_bound_reached, 0);
  EXPECT_GT(w.bodies.position[ball].z(), 2.0 * kR) << "the ball rests on the bed, not in it";
  EXPECT_LT(relative_residual(w), 1e-12);
}

TEST(SleepRegions, SameBitsOnOneAndTwoThreads) {
  LongBed one(2, 0.164, 0.0, 1), two(2, 0.164, 0.0, 2);
  for (LongBed* b : {&one, &two}) {
    b->t.add_sphere(kR, Vec3(0.05, 0.02, 0.2), Vec3(0, 0, 2.0));
    b->t.world.initialize();
    b->t.simulate(1.2);
  }
  EXPECT_EQ(one.t.state_hash(), two.t.state_hash());
  EXPECT_EQ(one.t.world.totals().asleep_steps, two.t.world.totals().asleep_steps);
  EXPECT_EQ(one.t.world.totals().woken, two.t.world.totals().woken);
  EXPECT_GT(one.t.world.totals().woken, 0);
  EXPECT_EQ(one.t.world.ledger().damping, two.t.world.ledger().damping);
}

}  // namespace
}  // namespace etdem::test
