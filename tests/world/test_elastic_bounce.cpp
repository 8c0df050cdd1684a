// An elastic ball (e = 1, mu = 0) bouncing on a plane keeps its energy: the bounce happens at the
// time of impact within the step, not at the start of the step while the ball is still up to
// |v| dt above the plane (which made it leave from too high and gain 2.7 % per bounce).
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "test_world_fixture.hpp"

namespace etdem::test {
namespace {

/// Total energy (kinetic + potential) at each apex of a ball dropped from `height` above the
/// plane, over `bounces` bounces.
std::vector<double> apex_energies(double height, int bounces, double dt) {
  TestWorld t(1.0, 0.0);
  t.world.settings.gravity = Vec3(0, 0, -9.81);
  t.world.settings.dt = dt;
  t.world.settings.resting_velocity = 0.0;  // fully elastic
  t.world.settings.projection = 0.0;
  t.add_floor();
  const double r = 0.05;
  const int ball = t.add_sphere(r, Vec3(0, 0, r + height));
  t.world.initialize();
  std::vector<double> apex{t.world.ledger().total()};
  double vz = 0.0;
  for (long k = 0; k < 200000 && static_cast<int>(apex.size()) <= bounces; ++k) {
    t.world.step();
    const double v = t.world.bodies.velocity[ball].z();
    if (vz > 0.0 && v <= 0.0) apex.push_back(t.world.ledger().total());
    vz = v;
  }
  return apex;
}

TEST(ElasticBounce, EnergyKeptWithinATenthOfAPercentPerBounce) {
  for (const double dt : {1.0 / 600.0, 1.0 / 200.0}) {
    const std::vector<double> apex = apex_energies(1.0, 12, dt);
    ASSERT_EQ(apex.size(), 13u);
    double worst = 0.0;
    for (std::size_t k = 1; k < apex.size(); ++k)
      worst = std::max(worst, std::abs(apex[k] - apex[k - 1]) / apex[0]);
    const double drift = std::abs(apex.back() - apex[0]) / apex[0];
    std::printf("dt = %.5f s: largest change per bounce %.2e, over 12 bounces %.2e\n", dt, worst,
                drift);
    EXPECT_LT(worst, 1e-3) << "dt " << dt;
    EXPECT_LT(drift, 5e-3) << "dt " << dt;
  }
}

}  // namespace
}  // namespace etdem::test
