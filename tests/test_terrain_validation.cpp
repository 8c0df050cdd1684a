// Validation on terrain (issue V6 on terrain, rest, settling): the closed forms of a block
// sliding with Coulomb friction, and grains at rest on a flat height map, under both resting
// treatments.
#include <gtest/gtest.h>

#include <cmath>

#include "etdem/shapes/level_set_build.hpp"
#include "incline_fixture.hpp"
#include "terrain_fixture.hpp"

namespace etdem {
namespace {

using test::Incline;

/// The incline of the V6 fixture as a height map: pixels of 5 cm over [-1, 4] x [-1, 1].
std::shared_ptr<const Terrain> incline_terrain(double slope_deg) {
  return test::make_terrain(test::inclined_map(slope_deg, -1.0, 4.0, -1.0, 1.0, 0.05), 0.05, 0.4);
}

TEST(TerrainV6, BlockSlidesDownAHeightMapInclineAtCoulombSpeed) {
  // v(d) = sqrt(2 g d (sin t - mu cos t)) within 1 %, friction angles 20 and 25 degrees on 30.
  const auto terrain = incline_terrain(30.0);
  for (double phi : {20.0, 25.0}) {
    Incline inc(30.0, phi, terrain);
    const double th = 30.0 * M_PI / 180, mu = std::tan(phi * M_PI / 180);
    for (int k = 0; k < 4; ++k) {
      inc.t.simulate(0.25);
      const double d = inc.distance();
      const double expected = std::sqrt(2 * 9.81 * d * (std::sin(th) - mu * std::cos(th)));
      std::printf("friction angle %.0f: d = %.4f m, v = %.5f m/s, closed form %.5f m/s (%.3f %%)\n",
                  phi, d, inc.speed(), expected, 100.0 * (inc.speed() - expected) / expected);
      EXPECT_NEAR(inc.speed(), expected, 0.01 * expected) << "friction angle " << phi << " d " << d;
      EXPECT_LT(inc.t.world.bodies.angular_velocity[inc.box].norm(), 1e-2);
    }
  }
}

TEST(TerrainV6, BlockOn25DegreeTerrainAcceleratesAtGTimesSinMinusMuCos) {
  // mu = 0.2 (the paper's rock avalanche): a = g (sin 25 - 0.2 cos 25) = 2.368 m/s^2 within 1 %.
  const double th = 25.0 * M_PI / 180, mu = 0.2;
  Incline inc(25.0, std::atan(mu) * 180 / M_PI, incline_terrain(25.0));
  inc.t.simulate(0.2);  // settled into sliding
  const double t0 = inc.t.world.time(), v0 = inc.speed();
  inc.t.simulate(0.8);
  const double a = (inc.speed() - v0) / (inc.t.world.time() - t0);
  const double expected = 9.81 * (std::sin(th) - mu * std::cos(th));
  std::printf("25 degree terrain, mu 0.2: a = %.5f m/s^2, closed form %.5f (%.3f %%)\n", a,
              expected, 100.0 * (a - expected) / expected);
  EXPECT_NEAR(expected, 2.368, 5e-4);
  EXPECT_NEAR(a, expected, 0.01 * expected);
}

/// A flat terrain at z = 0 over [-1, 1]^2 (pixels of 5 cm) in a world with gravity.
struct FlatTerrain {
  test::TestWorld t{0.5, 0.5};
  explicit FlatTerrain(const std::string& resting) {
    t.world.settings.gravity = Vec3(0, 0, -9.81);
    t.world.settings.resting = resting;
    t.world.add_terrain(
        test::make_terrain(test::height_map(41, 41, 0.05, -1.0, -1.0,
                                            [](double, double) { return 0.0; }),
                           0.05, 0.4),
        t.material, "ground");
  }
};

TEST(TerrainRest, SphereOnFlatTerrainStaysAtRestWithBothRestingTreatments) {
  for (const char* resting : {"pgs", "wall-correction"}) {
    FlatTerrain f(resting);
    const double r = 0.1;
    const int ball = f.t.add_sphere(r, Vec3(0.013, -0.021, r));
    f.t.simulate(1.0);
    const double z = f.t.world.bodies.position[ball].z();
    const double v = f.t.world.bodies.velocity[ball].norm();
    std::printf("%s: sphere height - r = %.3e m, |v| = %.3e m/s after 1 s\n", resting, z - r, v);
    EXPECT_NEAR(z, r, 0.01 * r) << resting;
    EXPECT_LT(v, 1e-4) << resting;
  }
}

TEST(TerrainRest, LevelSetGrainSettlesOnTerrainWithBothRestingTreatments) {
  // A rock-like superellipsoid dropped 2 cm onto the flat terrain comes to rest on it: after
  // 2 s its deepest node is within 2 % of its size of the surface and it has stopped.
  for (const char* resting : {"pgs", "wall-correction"}) {
    FlatTerrain f(resting);
    const int s = f.t.world.shapes.add_level_set(
        "grain", level_set_superellipsoid(Vec3(0.1, 0.08, 0.06), 0.7, 0.9, {0.01, 300}));
    const LevelSet& ls = f.t.world.shapes.level_set(s);
    const Quat q(Eigen::AngleAxisd(0.4, Vec3(1, 1, 0).normalized()));
    double lowest = 0.0;
    for (const Vec3& x : ls.nodes) lowest = std::min(lowest, (q * x).z());
    const int g = f.t.world.add_body(s, f.t.material, Vec3(0, 0, 0.02 - lowest), q);
    f.t.simulate(2.0);
    const Bodies& b = f.t.world.bodies;
    double depth = 0.0;
    for (const Vec3& x : ls.nodes) depth = std::min(depth, (b.position[g] + b.orientation[g] * x).z());
    const double v = b.velocity[g].norm() + b.angular_velocity[g].norm() * ls.bounding_radius;
    std::printf("%s: level-set grain deepest node %.3e m, surface speed %.3e m/s after 2 s\n",
                resting, depth, v);
    EXPECT_GT(depth, -0.02 * 2 * ls.bounding_radius) << resting;
    EXPECT_LT(v, std::string(resting) == "pgs" ? 1e-3 : 2e-2) << resting;
  }
}

}  // namespace
}  // namespace etdem
