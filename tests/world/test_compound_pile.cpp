// Compound grains through the whole step: crosses of seven cubes (ETM 2014 §7.4) dropped into a
// box settle with small penetration and the energy ledger closes; in zero gravity two crosses
// thrown at each other keep linear momentum and never create energy.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "test_world_fixture.hpp"

namespace etdem::test {
namespace {

/// A cross of three orthogonal 3a x a x a bars: a centre cube and six arm cubes.
int add_cross(World& w, double a) {
  const int cube = w.shapes.add_box("cube", Vec3::Constant(0.5 * a));
  std::vector<CompoundPart> parts{{cube, Vec3::Zero()}};
  for (int axis = 0; axis < 3; ++axis)
    for (double s : {-1.0, 1.0}) parts.push_back({cube, s * a * Vec3::Unit(axis)});
  return w.shapes.add_compound("cross", make_compound(w.shapes, parts));
}

/// Lowest point of a compound of boxes.
double lowest_z(const World& w, int i) {
  const Compound& c = w.shapes.compound(w.bodies.shape[i]);
  const Mat3 r = w.bodies.orientation[i].toRotationMatrix();
  double low = 1e300;
  for (const CompoundPart& p : c.parts) {
    const Mat3 rp = r * p.rotation;
    const Vec3& h = w.shapes.box(p.shape).half_extents;
    const double z = (w.bodies.position[i] + r * p.position).z() -
                     (rp.row(2).cwiseAbs().transpose().cwiseProduct(h)).sum();
    low = std::min(low, z);
  }
  return low;
}

TEST(CompoundPile, DroppedCrossesSettleWithSmallPenetrationAndTheLedgerCloses) {
  TestWorld t(0.3, 0.5, 2400.0);
  t.world.settings.gravity = Vec3(0, 0, -9.81);
  const double a = 0.02 / 3.0;
  const int cross = add_cross(t.world, a);
  t.add_container(Vec3(0, 0, 0), Vec3(0.08, 0.08, 1));
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int k = 0; k < 12; ++k) {
    const Vec3 x(0.02 + 0.04 * (k % 2), 0.02 + 0.04 * ((k / 2) % 2), 0.02 + 0.03 * (k / 4));
    t.world.add_body(cross, t.material, x, Quat(u(rng), u(rng), u(rng), u(rng)).normalized(),
                     0.1 * Vec3(u(rng), u(rng), u(rng)), Vec3::Zero());
  }
  t.world.initialize();
  t.simulate(1.5);
  double worst_pen = 0.0, worst_speed = 0.0, lowest = 1e9;
  for (int k = 0; k < 60; ++k) {  // 0.1 s watched
    t.world.step();
    worst_pen = std::max(worst_pen, t.world.last_step().max_penetration);
  }
  for (int i = 0; i < t.world.bodies.count(); ++i) {
    if (!t.world.bodies.is_dynamic(i)) continue;
    worst_speed = std::max(worst_speed, t.world.bodies.velocity[i].norm());
    lowest = std::min(lowest, lowest_z(t.world, i));
  }
  const RunTotals& tot = t.world.totals();
  std::printf(
      "12 crosses after 1.6 s: max penetration %.3e m (%.2f %% of a = %.4f m), max speed %.3e "
      "m/s, lowest point z = %.3e m, %ld contacts/step, guards %ld\n",
      worst_pen, 100 * worst_pen / a, a, worst_speed, lowest, tot.contacts / tot.steps,
      tot.solver.guards_fired);
  EXPECT_LT(worst_pen, 0.02 * a);
  EXPECT_GT(lowest, -0.02 * a);  // nothing fell through the floor
  EXPECT_LT(worst_speed, 0.05);  // at rest (g dt = 0.016 m/s)
  EXPECT_LT(std::abs(t.world.ledger().residual()), 1e-9 * t.world.ledger().initial);
}

TEST(CompoundPile, TwoCrossesInZeroGravityKeepMomentumAndNeverCreateEnergy) {
  for (const auto& [e, mu] : {std::pair{1.0, 0.0}, std::pair{0.5, 0.4}}) {
    TestWorld t(e, mu, 2400.0);
    const double a = 0.02 / 3.0;
    const int cross = add_cross(t.world, a);
    const Quat qa = Quat(0.9, 0.1, 0.3, -0.2).normalized();
    const Quat qb = Quat(0.7, -0.4, 0.2, 0.5).normalized();
    t.world.add_body(cross, t.material, Vec3(0, 0, 0), qa, Vec3(0.4, 0.05, 0.0), Vec3(0, 3, 1));
    t.world.add_body(cross, t.material, Vec3(0.03, 0.004, 0.002), qb, Vec3(-0.3, 0.0, 0.02),
                     Vec3(-2, 0, 4));
    t.world.initialize();
    const Vec3 p0 = t.linear_momentum();
    double scale = 0.0;
    for (int i = 0; i < t.world.bodies.count(); ++i)
      scale += t.world.bodies.mass[i] * t.world.bodies.velocity[i].norm();
    double ke = t.kinetic(), worst_rise = 0.0, integration = t.world.ledger().integration;
    const double ke0 = ke;
    long contacts = 0;
    for (int k = 0; k < 120; ++k) {
      t.world.step();
      contacts += t.world.last_step().contacts;
      const double booked = -(t.world.ledger().integration - integration);
      integration = t.world.ledger().integration;
      worst_rise = std::max(worst_rise, (t.kinetic() - ke - booked) / ke);
      ke = t.kinetic();
    }
    std::printf(
        "e = %.1f, mu = %.1f: %ld contact points in 120 steps, |dp| / sum|m v| = %.2e, largest "
        "energy rise %.2e, kinetic energy %.4e -> %.4e J\n",
        e, mu, contacts, (t.linear_momentum() - p0).norm() / scale, worst_rise, ke0, ke);
    EXPECT_GT(contacts, 0);
    EXPECT_LT((t.linear_momentum() - p0).norm(), 1e-12 * scale);
    EXPECT_LT(worst_rise, 1e-12);
    EXPECT_LT(std::abs(t.world.ledger().residual()), 1e-9 * t.world.ledger().initial);
    if (e < 1.0) {
      EXPECT_LT(ke, ke0);  // an inelastic collision happened
    }
  }
}

}  // namespace
}  // namespace etdem::test
