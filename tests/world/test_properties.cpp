// Property tests: conservation laws and determinism that every configuration must respect.
#include <gtest/gtest.h>
#include <omp.h>

#include <random>

#include "test_world_fixture.hpp"

namespace etdem::test {
namespace {

// A cloud of spheres and boxes with random velocities and no gravity or walls collides freely.
void fill_cloud(TestWorld& t, unsigned seed) {
  fill_spheres(t, 6, 6, 6, 0.04, 0.1, Vec3(0, 0, 0), 1.0, seed, 0.5);
  std::mt19937_64 rng(seed + 1);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int k = 0; k < 20; ++k) {
    const Vec3 x(0.15 + 0.1 * (k % 5), 0.15 + 0.1 * (k / 5), 0.75);
    t.add_box(Vec3(0.03, 0.02, 0.015), x, Quat(Eigen::AngleAxisd(u(rng) * 3, Vec3(u(rng), u(rng), 1).normalized())),
              Vec3(u(rng), u(rng), -1.0), Vec3(u(rng), u(rng), u(rng)) * 5);
  }
}

TEST(Properties, LinearMomentumConservedInZeroGravityCloud) {
  for (double e : {1.0, 0.5}) {
    TestWorld t(e, 0.4);
    fill_cloud(t, 7);
    t.world.initialize();
    const Vec3 p0 = t.linear_momentum();
    const double scale = [&] {
      double s = 0;
      for (int i = 0; i < t.world.bodies.count(); ++i) s += t.world.bodies.mass[i] * t.world.bodies.velocity[i].norm();
      return s;
    }();
    t.steps(300);
    EXPECT_GT(t.world.totals().candidates, 100);  // it did collide
    EXPECT_LT((t.linear_momentum() - p0).norm(), 1e-12 * scale) << "e " << e;
  }
}

TEST(Properties, EnergyNeverCreatedForDissipativeMaterials) {
  for (double e : {1.0, 0.7, 0.0}) {
    for (double mu : {0.0, 0.3, 1.0}) {
      // Spheres only: a tumbling box's rotational energy is not an invariant of the rotation
      // integrator (it keeps L exactly), so boxes would measure the integrator, not the solver.
      TestWorld t(e, mu);
      fill_spheres(t, 6, 6, 6, 0.04, 0.1, Vec3(0, 0, 0), 1.0, 11, 0.5);
      t.world.settings.resting_velocity = 0.0;  // pure ETM
      t.world.initialize();
      double previous = t.kinetic();
      const double e0 = previous;
      for (int k = 0; k < 200; ++k) {
        t.world.step();
        const double now = t.kinetic();
        // No gravity: kinetic energy is the whole energy; it may only fall (round-off allowed).
        ASSERT_LE(now, previous + 1e-12 * e0) << "e " << e << " mu " << mu << " step " << k;
        previous = now;
      }
      if (e == 1.0 && mu == 0.0) {
        EXPECT_NEAR(t.kinetic(), e0, 1e-9 * e0) << "elastic frictionless ETM conserves energy";
      }
      const EnergyLedger& l = t.world.ledger();
      EXPECT_NEAR(l.residual(), 0.0, 1e-9 * e0) << "ledger closes";
    }
  }
}

TEST(Properties, SolversNeverBookNegativeDissipationInMixedCloud) {
  TestWorld t(0.6, 0.5);
  fill_cloud(t, 5);
  t.world.initialize();
  const double e0 = t.kinetic();
  t.steps(300);
  const EnergyLedger& l = t.world.ledger();
  EXPECT_GE(l.restitution, 0.0);
  EXPECT_GE(l.friction, -1e-12 * e0);
  EXPECT_LT(std::abs(l.truncation), 1e-6 * e0);
  EXPECT_LT(t.kinetic(), e0);
}

TEST(Properties, LedgerClosesToRoundOffForAPourWithGravity) {
  TestWorld t(0.5, 0.5);
  t.world.settings.gravity = Vec3(0, 0, -9.81);
  t.world.settings.damping = 0.5;
  t.add_container(Vec3(0, 0, 0), Vec3(0.12, 0.06, 1));
  fill_spheres(t, 10, 5, 4, 0.005, 0.012, Vec3(0, 0, 0), 0.05, 9, 0.3);
  for (int k = 0; k < 8; ++k)
    t.add_box(Vec3(0.005, 0.004, 0.003), Vec3(0.01 + 0.012 * k, 0.03, 0.07),
              Quat(Eigen::AngleAxisd(0.4 * k, Vec3(1, 0.5, 0.2).normalized())));
  t.world.initialize();
  t.steps(400);
  const EnergyLedger& l = t.world.ledger();
  EXPECT_GT(l.restitution + l.friction, 0.1 * l.initial);  // a lot was dissipated
  EXPECT_GT(l.damping, 0.0);
  EXPECT_LT(std::abs(l.residual()), 1e-9 * l.initial);
}

TEST(Properties, TorqueFreeAsymmetricBodyKeepsAngularMomentum) {
  TestWorld t;
  const int b = t.add_box(Vec3(0.3, 0.2, 0.05), Vec3::Zero(), Quat(Eigen::AngleAxisd(0.4, Vec3(1, 1, 0).normalized())),
                          Vec3::Zero(), Vec3(1.0, 2.0, 3.0));
  t.world.settings.dt = 1e-3;
  t.world.initialize();
  auto momentum = [&] {
    return Vec3(world_inertia(t.world.bodies.orientation[b], t.world.bodies.inertia[b]) *
                t.world.bodies.angular_velocity[b]);
  };
  const Vec3 l0 = momentum();
  t.steps(20000);
  const Vec3 l1 = momentum();
  // Round-off over 20 000 steps (about 1e-16 per step).
  EXPECT_NEAR(l1.norm(), l0.norm(), 1e-11 * l0.norm());
  EXPECT_LT((l1.normalized() - l0.normalized()).norm(), 1e-11);
  // The body really tumbles: its angular velocity has changed direction.
  EXPECT_GT((t.world.bodies.angular_velocity[b].normalized() - Vec3(1, 2, 3).normalized()).norm(), 0.05);
}

std::uint64_t pour_hash(int threads) {
  omp_set_num_threads(threads);
  TestWorld t(0.5, 0.5);
  t.world.settings.gravity = Vec3(0, 0, -9.81);
  t.add_container(Vec3(0, 0, 0), Vec3(0.12, 0.06, 1));
  fill_spheres(t, 10, 5, 6, 0.005, 0.012, Vec3(0, 0, 0), 0.05, 3, 0.3);
  for (int k = 0; k < 10; ++k)
    t.add_box(Vec3(0.005, 0.004, 0.003), Vec3(0.01 + 0.011 * k, 0.03, 0.09), Quat(Eigen::AngleAxisd(0.3 * k, Vec3(1, 0.5, 0.2).normalized())));
  t.world.initialize();
  t.steps(240);
  return t.state_hash();
}

// A pile that forms one island of thousands of contacts: still bitwise identical.
std::uint64_t big_pile_hash(int threads, long* resting_contacts) {
  omp_set_num_threads(threads);
  TestWorld t(0.5, 0.5);
  t.world.settings.gravity = Vec3(0, 0, -9.81);
  t.add_container(Vec3(0, 0, 0), Vec3(0.144, 0.144, 1));
  fill_spheres(t, 12, 12, 8, 0.005, 0.012, Vec3(0, 0, 0), 0.0, 5, 0.3);
  t.world.initialize();
  t.steps(150);
  *resting_contacts = t.world.last_step().largest_island;
  return t.state_hash();
}

TEST(Properties, LargeIslandDeterministicAcrossThreadCounts) {
  const int saved = omp_get_max_threads();
  long contacts = 0;
  const std::uint64_t one = big_pile_hash(1, &contacts);
  EXPECT_GE(contacts, 2048) << "one large island";
  EXPECT_EQ(one, big_pile_hash(2, &contacts)) << "1 vs 2 threads";
  omp_set_num_threads(saved);
}

TEST(Properties, DeterministicAcrossRunsAndThreadCounts) {
  const int saved = omp_get_max_threads();
  const std::uint64_t one = pour_hash(1);
  EXPECT_EQ(one, pour_hash(1)) << "two runs";
  EXPECT_EQ(one, pour_hash(2)) << "1 vs 2 threads";
  omp_set_num_threads(saved);
}

}  // namespace
}  // namespace etdem::test
