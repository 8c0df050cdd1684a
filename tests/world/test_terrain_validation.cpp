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

TEST(TerrainEdge, BallRollsOffTheRasterOntoTheGroundThatGoesOn) {
  // A ball (e = 0, mu = 0.5: rolling, not slipping) on the 30 degree incline raster over
  // [-1, 4] x [-1, 1] rolls down and leaves the raster at x = 4, where the ground goes on flat
  // at the edge's height (shapes/terrain.hpp). Past the edge it rolls on at that height, 2 m
  // beyond the raster and the terrain's grid: it neither falls through nor jumps, and with no
  // rolling resistance its speed stays. (When the terrain ended at its raster the ball fell.)
  const double th = 30.0 * M_PI / 180, r = 0.05, z_edge = -std::tan(th) * 4.0;
  test::TestWorld t(0.0, 0.5);
  t.world.settings.gravity = Vec3(0, 0, -9.81);
  t.world.add_terrain(incline_terrain(30.0), t.material, "ground");
  const double x0 = 3.6;
  const int ball = t.add_sphere(
      r, Vec3(x0, 0.0, -std::tan(th) * x0) + r * Vec3(std::sin(th), 0.0, std::cos(th)));
  double lowest = 1e9, highest = -1e9, v_first = 0.0;
  for (int k = 1; k <= 50; ++k) {
    t.simulate(0.04);
    const Vec3& x = t.world.bodies.position[ball];
    if (x.x() < 4.5) continue;  // past the break in slope and its settling
    lowest = std::min(lowest, x.z());
    highest = std::max(highest, x.z());
    if (v_first == 0.0) v_first = t.world.bodies.velocity[ball].norm();
  }
  const Vec3& x = t.world.bodies.position[ball];
  const double v = t.world.bodies.velocity[ball].norm();
  std::printf(
      "past the raster's edge: x = %.3f m, height - r from %.3e to %.3e m, speed %.4f -> "
      "%.4f m/s\n",
      x.x(), lowest - z_edge - r, highest - z_edge - r, v_first, v);
  EXPECT_GT(x.x(), 5.5);
  EXPECT_NEAR(lowest, z_edge + r, 1e-3 * r);
  EXPECT_NEAR(highest, z_edge + r, 1e-3 * r);
  EXPECT_GT(v_first, 1.0);
  EXPECT_NEAR(v, v_first, 0.01 * v_first);
}

/// A flat terrain at z = 0 over [-1, 1]^2 (pixels of 5 cm) in a world with gravity.
struct FlatTerrain {
  test::TestWorld t;
  FlatTerrain(const std::string& resting, double restitution, double friction)
      : t(restitution, friction) {
    t.world.settings.gravity = Vec3(0, 0, -9.81);
    t.world.settings.resting = resting;
    t.world.add_terrain(test::make_terrain(test::height_map(41, 41, 0.05, -1.0, -1.0,
                                                            [](double, double) { return 0.0; }),
                                           0.05, 0.4),
                        t.material, "ground");
  }
};

TEST(TerrainRest, SphereOnFlatTerrainStaysAtRestWithBothRestingTreatments) {
  // e = 0, mu = 0.5, placed touching. With the resting pass (pgs) it stays at r to 1e-7 of r and
  // does not move (below 1e-4 m/s after 1 s). With the wall correction it stays within 1e-4 of
  // r of its height; its velocity holds one step of gravity, g dt, as it does on a plane when
  // the sphere starts a nanometre above it (the stored distances are floats): the collision
  // solver leaves a contact that closes within the step to the correction, which moves
  // positions only (world/wall_correction.cpp). Checked here against the plane.
  for (const char* resting : {"pgs", "wall-correction"}) {
    FlatTerrain f(resting, 0.0, 0.5);
    const double r = 0.1;
    const int ball = f.t.add_sphere(r, Vec3(0.013, -0.021, r));
    f.t.simulate(0.5);
    const double z_half = f.t.world.bodies.position[ball].z();
    f.t.simulate(0.5);
    const double z = f.t.world.bodies.position[ball].z();
    const double v = f.t.world.bodies.velocity[ball].norm();
    std::printf("%s: sphere height - r = %.3e m, |v| = %.3e m/s after 1 s\n", resting, z - r, v);
    EXPECT_NEAR(z, r, 1e-4 * r) << resting;
    EXPECT_LT(std::abs(z - z_half), 1e-4 * r) << resting;
    if (std::string(resting) == "pgs") {
      EXPECT_NEAR(z, r, 1e-7 * r);  // the stored distance is a float
      EXPECT_LT(v, 1e-4);
    } else {
      test::TestWorld p(0.0, 0.5);
      p.world.settings.gravity = Vec3(0, 0, -9.81);
      p.world.settings.resting = resting;
      p.add_floor();
      const int pb = p.add_sphere(r, Vec3(0.013, -0.021, r + 1.5e-9));
      p.simulate(1.0);
      EXPECT_NEAR(v, p.world.bodies.velocity[pb].norm(), 1e-3) << "as on a plane";
      EXPECT_LT(v, 1.01 * 9.81 * f.t.world.settings.dt);
    }
  }
}

TEST(TerrainRest, LevelSetRockSettlesOnTerrainAsOnAPlaneWithBothRestingTreatments) {
  // The rock of tests/world/test_wall_correction.cpp (1 cm, e = 0.65, mu = 0.55) dropped 2 cm onto
  // the flat terrain and, side by side, onto a plane: the two agree through the impact and the
  // first bounces (0.25 s, to 1e-6 m), its deepest node stays within 1 % of its size of the surface
  // at every step, the ledger closes, and after 2 s it has nearly stopped rocking (as on the plane:
  // this rock rocks for seconds with e = 0.65).
  for (const char* resting : {"pgs", "wall-correction"}) {
    FlatTerrain f(resting, 0.65, 0.55);
    test::TestWorld p(0.65, 0.55);
    p.world.settings.gravity = Vec3(0, 0, -9.81);
    p.world.settings.resting = resting;
    p.add_floor();
    int rock[2];
    test::TestWorld* worlds[2] = {&f.t, &p};
    for (int w = 0; w < 2; ++w) {
      test::TestWorld& t = *worlds[w];
      t.world.settings.projection = 0.0;
      const int shape =
          t.world.shapes.add_level_set("rock", level_set_rock(0.01, 0.2, 1.5, 4, {0.001, 400}));
      rock[w] = t.world.add_body(shape, t.material, Vec3(0, 0, 0.02),
                                 Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized())));
      t.world.initialize();
    }
    const int b = rock[0];
    const LevelSet& ls = f.t.world.shapes.level_set(f.t.world.bodies.shape[b]);
    double deepest = 0.0, apart = 0.0;
    for (int k = 0; k < 1200; ++k) {
      f.t.world.step();
      p.world.step();
      const Mat3 rot = f.t.world.bodies.orientation[b].toRotationMatrix();
      for (const Vec3& n : ls.nodes)
        deepest = std::min(deepest, (f.t.world.bodies.position[b] + rot * n).z());
      if (k < 150)
        apart = std::max(apart,
                         (f.t.world.bodies.position[b] - p.world.bodies.position[rock[1]]).norm());
    }
    const double v = f.t.world.bodies.velocity[b].norm();
    std::printf(
        "%s: rock on terrain: deepest node %.3e m, %.2e m from the plane's rock in 0.25 s, "
        "speed %.2e m/s after 2 s (on the plane %.2e)\n",
        resting, deepest, apart, v, p.world.bodies.velocity[rock[1]].norm());
    EXPECT_LT(apart, 1e-6) << resting;
    EXPECT_GT(deepest, -0.01 * 0.02) << resting;
    EXPECT_LT(v, 2e-2) << resting;
    EXPECT_LT(std::abs(f.t.world.ledger().residual()) / f.t.world.ledger().initial, 1e-12);
  }
}

}  // namespace
}  // namespace etdem
