// Rolling resistance in the resting pass (material rolling_friction mu_r): closed-form answers of
// a sphere on an incline and on a flat floor, the ledger, and mu_r = 0 leaving every bit alone.
#include <gtest/gtest.h>

#include <cmath>

#include "test_world_fixture.hpp"

namespace etdem::test {
namespace {

constexpr double kG = 9.81;

// A sphere of radius r resting on a plane through the origin tilted by `slope` about y (downhill
// +x), sliding friction mu, rolling resistance mu_r; gravity on.
struct RollingSphere {
  TestWorld t{0.0, 0.5};
  int sphere = -1;
  Vec3 downhill;
  RollingSphere(double slope, double mu_r, const Vec3& v0 = Vec3::Zero(),
                const Vec3& w0 = Vec3::Zero(), double r = 0.01) {
    t.world.materials[t.material].rolling_friction = mu_r;
    t.world.settings.gravity = Vec3(0, 0, -kG);
    // The law itself: just past the critical angle the sphere gains 7 mm/s in a second, below
    // the default sleep_velocity for longer than sleep_time, and would fall asleep.
    t.world.settings.sleep_velocity = 0.0;
    const Vec3 n(std::sin(slope), 0, std::cos(slope));
    downhill = Vec3(std::cos(slope), 0, -std::sin(slope));
    t.add_plane(Vec3::Zero(), n);
    sphere = t.add_sphere(r, r * n, v0, w0);
    t.world.initialize();
  }
  double speed() const { return t.world.bodies.velocity[sphere].dot(downhill); }
  double along() const { return t.world.bodies.position[sphere].dot(downhill); }
};

// Static equilibrium: friction F = m g sin(t) holds the centre, its moment F R about the centre
// must be met by the rolling torque, at most mu_r R m g cos(t): the sphere stays iff
// tan(t) <= mu_r. Rolling beyond it: a = 5/7 g (sin t - mu_r cos t).
TEST(RollingResistance, SphereOnInclineHoldsIffTanBelowMuR) {
  const double mu_r = 0.1, critical = std::atan(mu_r);
  {
    RollingSphere s(0.99 * critical, mu_r);
    const double x0 = s.along();
    s.t.simulate(1.0);
    std::printf("at 0.99 of the critical angle: moved %.3e m, speed %.3e m/s\n", s.along() - x0,
                s.speed());
    // Rolling from rest at the smallest acceleration it could have just past the bound
    // (1 % of the angle: 5/7 g (sin - mu_r cos) = 7e-3 m/s^2) would go 3.5 mm in 1 s.
    EXPECT_LT(std::abs(s.along() - x0), 1e-6);
    EXPECT_LT(std::abs(s.speed()), 1e-6);
  }
  {
    const double slope = 1.01 * critical;
    RollingSphere s(slope, mu_r);
    const double x0 = s.along();
    s.t.simulate(1.0);
    const double a = 5.0 / 7.0 * kG * (std::sin(slope) - mu_r * std::cos(slope));
    std::printf("at 1.01 of the critical angle: moved %.4e m, expected %.4e m\n", s.along() - x0,
                0.5 * a);
    EXPECT_NEAR(s.speed(), a * 1.0, 0.02 * a);
  }
}

TEST(RollingResistance, SphereRollsDownSteeperInclineAtClosedFormAcceleration) {
  const double mu_r = 0.1, slope = 2.0 * std::atan(mu_r);
  RollingSphere s(slope, mu_r);
  s.t.simulate(0.5);
  const double a = 5.0 / 7.0 * kG * (std::sin(slope) - mu_r * std::cos(slope));
  std::printf("incline at twice the critical angle: v %.6f m/s, expected %.6f\n", s.speed(),
              0.5 * a);
  EXPECT_NEAR(s.speed(), 0.5 * a, 0.01 * 0.5 * a);
}

// Rolling without slip on a flat floor: m a = F, (I / R^2) a = -F - mu_r m g, so the sphere
// decelerates at a = 5/7 mu_r g; the kinetic energy it loses is the rolling work, booked as
// friction, and the ledger closes.
TEST(RollingResistance, SphereRollingOnFloorDeceleratesAtFiveSeventhsMuRG) {
  const double mu_r = 0.05, r = 0.01, v0 = 1.0;
  RollingSphere s(0.0, mu_r, Vec3(v0, 0, 0), Vec3(0, v0 / r, 0), r);
  const double k0 = s.t.kinetic();
  double friction = s.t.world.ledger().friction;
  bool decreased = false;
  const double t_end = 1.0;
  for (long k = 0; k < std::lround(t_end / s.t.world.settings.dt); ++k) {
    s.t.world.step();
    if (s.t.world.ledger().friction < friction - 1e-15) decreased = true;
    friction = s.t.world.ledger().friction;
  }
  const double a = (v0 - s.speed()) / t_end, expected = 5.0 / 7.0 * mu_r * kG;
  std::printf("deceleration %.6f m/s^2, 5/7 mu_r g = %.6f; rolling: w R / v = %.9f\n", a, expected,
              s.t.world.bodies.angular_velocity[s.sphere].y() * r / s.speed());
  EXPECT_NEAR(a, expected, 0.01 * expected);
  EXPECT_NEAR(s.t.world.bodies.angular_velocity[s.sphere].y() * r, s.speed(), 1e-6);
  EXPECT_FALSE(decreased) << "rolling work only dissipates";
  // The kinetic energy lost (the centre stays at its height) is the friction column.
  EXPECT_NEAR(s.t.world.ledger().friction, k0 - s.t.kinetic(), 1e-6 * k0);
  EXPECT_LT(std::abs(s.t.world.ledger().residual()), 1e-9 * s.t.world.ledger().initial);
}

// A pile of spheres with rolling resistance: the ledger closes, the friction column (which holds
// the rolling work) never decreases, and the pile comes to rest sooner than without.
TEST(RollingResistance, PileLedgerClosesAndRollingOnlyDissipates) {
  auto pile = [](double mu_r, double* speed) {
    TestWorld t(0.5, 0.5);
    t.world.materials[t.material].rolling_friction = mu_r;
    t.world.settings.gravity = Vec3(0, 0, -kG);
    t.world.settings.sleep_velocity = 0.0;  // the speeds the law leaves, not sleep's zeros
    t.add_container(Vec3(0, 0, 0), Vec3(0.072, 0.048, 1));
    fill_spheres(t, 6, 4, 3, 0.005, 0.012, Vec3(0, 0, 0), 0.3, 21, 0.3);
    t.world.initialize();
    double friction = 0.0;
    bool decreased = false;
    for (int k = 0; k < 900; ++k) {
      t.world.step();
      if (t.world.ledger().friction < friction - 1e-12 * std::abs(friction)) decreased = true;
      friction = t.world.ledger().friction;
    }
    EXPECT_FALSE(decreased);
    EXPECT_LT(std::abs(t.world.ledger().residual()), 1e-9 * t.world.ledger().initial);
    *speed = 0.0;
    for (int i = 0; i < t.world.bodies.count(); ++i)
      if (t.world.bodies.is_dynamic(i)) *speed += t.world.bodies.velocity[i].norm();
    *speed /= 72.0;
  };
  double with = 0.0, without = 0.0;
  pile(0.1, &with);
  pile(0.0, &without);
  std::printf("mean speed after 1.5 s: %.3e m/s with mu_r = 0.1, %.3e m/s without\n", with,
              without);
  EXPECT_LT(with, without);
}

// A pair takes the geometric mean: grains with mu_r > 0 on a floor without it have no rolling
// resistance there, and move exactly as grains without it.
TEST(RollingResistance, ZeroPairRollingLeavesTrajectoryBitwiseUnchanged) {
  auto run = [](double grain_mu_r) {
    TestWorld t(0.5, 0.5);
    t.world.settings.gravity = Vec3(0, 0, -kG);
    Material grain = t.world.materials[t.material];
    grain.name = "grain";
    grain.rolling_friction = grain_mu_r;
    const int m = t.world.add_material(grain);
    t.add_floor();
    const int s = t.world.shapes.add_sphere("sphere", 0.01);
    t.world.add_body(s, m, Vec3(0, 0, 0.01), Quat::Identity(), Vec3(1, 0, 0), Vec3(0, 20, 0));
    t.world.initialize();
    t.simulate(0.5);
    return t.state_hash();
  };
  EXPECT_EQ(run(0.3), run(0.0));
}

}  // namespace
}  // namespace etdem::test
