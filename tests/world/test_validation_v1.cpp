// V1 (ETM 2014 §7.1): two tetrahedra, single-point impact, e = 1, mu = 0, v_A = (0, 0, -100) m/s,
// w_A = (5, 10, 3) rad/s, B at rest: the relative energy error stays at round-off for lambda in
// {1, 5, 10, 100, 200, 500}. The paper does not give the tetrahedra; the geometry below gives a
// genuine vertex-face contact (docs/validation.md). Contacts come from the real narrow phase.
//
// V2 from real geometry (ETM 2014 §7.2): a unit cube (as a polyhedron) falls at (0, 0, -10) m/s
// onto a static cube offset by half a side, e = 1, mu = 0. Its four contact points all lie on one
// half of its bottom face, and ETM, which applies the impulses one increment at a time, sets it
// spinning about y; energy is conserved (and momentum, when the lower cube is free).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "etdem/validation/cases.hpp"
#include "test_world_fixture.hpp"

namespace etdem {
namespace {

constexpr double kDensity = validation::kV1Density;

using validation::cube_vertices;
using validation::V1Result;
using validation::V2Result;

/// V1 through `etdem validate`'s set-up, with what the narrow phase gave asserted.
V1Result run_v1(int lambda) {
  const V1Result r = validation::v1_tetrahedra(lambda);
  EXPECT_EQ(r.points, 1);
  EXPECT_NEAR(r.gap, 1e-3, 1e-14);
  EXPECT_NEAR(r.normal_error, 0.0, 1e-14);
  EXPECT_NEAR(r.point_error, 0.0, 1e-14);
  return r;
}

TEST(ValidationV1, TwoTetrahedraSinglePointImpactConservesEnergyForEveryLambda) {
  std::printf("lambda  energy error   u_n before [m/s]  u_n after [m/s]  impulses\n");
  for (int lambda : {1, 5, 10, 100, 200, 500}) {
    const V1Result r = run_v1(lambda);
    std::printf("%6d  %.3e  %.10f  %.10f  %ld\n", lambda, r.energy_error, r.un0, r.un1,
                r.stats.iterations);
    EXPECT_LE(r.energy_error, 1e-13) << "lambda " << lambda;
    ASSERT_LT(r.un0, 0.0);
    EXPECT_NEAR(r.un1, -r.un0, 1e-12 * std::abs(r.un0)) << "lambda " << lambda;
    const double scale = 100.0 * 2.0 * kDensity;  // |p| of A, order of magnitude
    EXPECT_LT(r.dp.norm(), 1e-12 * scale) << "lambda " << lambda;
    EXPECT_LT(r.dl.norm(), 1e-12 * scale) << "lambda " << lambda;
    EXPECT_EQ(r.stats.guards_fired, 0);
    EXPECT_EQ(r.stats.approaching_left, 0);
    EXPECT_GE(r.stats.iterations, lambda);
    EXPECT_NEAR(r.stats.dissipated_restitution, 0.0, 1e-12 * r.ke0);
  }
  const V1Result r = run_v1(200);
  std::printf("kinetic energy %.6f J, elastic energy at maximum compression %.6f J\n", r.ke0,
              r.w_peak);
}

// ---------------------------------------------------------------------------------------------
// V2. Unit cubes as polyhedra; the upper one offset by half a side along x, 1 mm above.

V2Result run_v2(int lambda, bool free_lower, std::vector<int> order = {}) {
  const V2Result r = validation::v2_half_cube(lambda, free_lower, std::move(order));
  EXPECT_EQ(r.points, 4);
  EXPECT_NEAR(r.normal_error, 0.0, 1e-15);
  EXPECT_NEAR(r.gap_error, 0.0, 1e-15);
  EXPECT_LE(r.x_max, 0.5 + 1e-15);  // all on the -x half of A's bottom face
  EXPECT_GE(r.x_min, -1e-15);
  EXPECT_EQ(r.stats.guards_fired, 0);
  EXPECT_EQ(r.stats.approaching_left, 0);
  return r;
}

/// Checks every order of the four contact points; returns the smallest and largest omega_y and
/// |omega| over the 24 orders.
struct Spread {
  double wy_min = 1e300, wy_max = -1e300, w_min = 1e300, w_max = 0.0;
  int pitching = 0;  // orders with omega_y > 1e-9
};
Spread all_orders(int lambda, bool free_lower) {
  Spread sp;
  std::vector<int> order = {0, 1, 2, 3};
  do {
    const V2Result r = run_v2(lambda, free_lower, order);
    EXPECT_LE(r.energy_error, 1e-12) << "lambda " << lambda;
    // Frictionless with the normal along z: no horizontal impulse, no spin about z.
    EXPECT_NEAR(r.v.x(), 0.0, 1e-12);
    EXPECT_NEAR(r.v.y(), 0.0, 1e-12);
    EXPECT_NEAR(r.w.z(), 0.0, 1e-12);
    // The upward impulses act at x <= 0.5, never ahead of A's centre: A never pitches the
    // wrong way about y.
    EXPECT_GE(r.w.y(), -1e-12) << "lambda " << lambda;
    EXPECT_GT(r.w.norm(), 1e-3) << "lambda " << lambda;  // ETM always turns it
    if (free_lower) {
      const double scale = 10.0 * kDensity;  // |p| of A
      EXPECT_LT(r.dp.norm(), 1e-12 * scale) << "lambda " << lambda;
      EXPECT_LT(r.dl.norm(), 1e-12 * scale) << "lambda " << lambda;
    }
    sp.pitching += r.w.y() > 1e-9;
    sp.wy_min = std::min(sp.wy_min, r.w.y());
    sp.wy_max = std::max(sp.wy_max, r.w.y());
    sp.w_min = std::min(sp.w_min, r.w.norm());
    sp.w_max = std::max(sp.w_max, r.w.norm());
  } while (std::next_permutation(order.begin(), order.end()));
  return sp;
}

TEST(ValidationV2, HalfOffsetCubeOnAStaticCubeIsTurnedAndKeepsItsEnergy) {
  // The four points come in two mirror pairs whose normal velocities stay exactly equal, so ETM's
  // heap meets exact ties, broken by contact index: the outcome depends on the order of the
  // points. Every order is run; omega_y is 0 when the points under A's centre line (x = 0.5) win
  // every tie, else positive.
  std::printf("static lower cube: omega [rad/s] in the narrow phase's order; over all 24 orders\n");
  std::printf(
      "lambda  omega_x  omega_y  v_z     | omega_y min..max   |omega| min..max  pitching\n");
  for (int lambda : {1, 5, 10, 30, 100, 200}) {
    const V2Result r = run_v2(lambda, false);
    const Spread sp = all_orders(lambda, false);
    std::printf("%6d  %.4f  %.4f  %.5f | %.4f .. %.4f   %.4f .. %.4f  %d of 24\n", lambda, r.w.x(),
                r.w.y(), r.v.z(), sp.wy_min, sp.wy_max, sp.w_min, sp.w_max, sp.pitching);
    EXPECT_GT(sp.wy_max, 0.1) << "lambda " << lambda;
    EXPECT_GT(r.v.z(), 0.0);  // it bounces
  }
}

TEST(ValidationV2, HalfOffsetCubeOnAFreeCubeConservesMomentumAndEnergy) {
  // With the lower cube free, its lever arms break the ties: A pitches about +y for every order.
  std::printf("free lower cube: omega of A [rad/s]; over all 24 orders\n");
  std::printf("lambda  omega_x  omega_y  v_z(A)   | omega_y min..max\n");
  for (int lambda : {1, 5, 10, 30, 100, 200}) {
    const V2Result r = run_v2(lambda, true);
    const Spread sp = all_orders(lambda, true);
    std::printf("%6d  %.4f  %.4f  %.5f | %.4f .. %.4f\n", lambda, r.w.x(), r.w.y(), r.v.z(),
                sp.wy_min, sp.wy_max);
    EXPECT_GT(sp.wy_min, 0.1) << "lambda " << lambda;
  }
}

TEST(ValidationV2, FullStepsInTheWorldMatchTheDirectSolve) {
  // The same drop through World::step (narrow phase, islands, ETM, integration), no gravity, no
  // resting treatment: after the bounce the upper cube moves and spins as the direct solve says.
  for (int lambda : {10, 30}) {
    test::TestWorld t(1.0, 0.0, kDensity);
    t.world.settings.solver_settings<EtmSettings>().lambda = lambda;
    t.world.settings.resting_velocity = 0.0;
    const int cube = t.world.shapes.add_polyhedron("cube", cube_vertices(0.5));
    const int a = t.world.add_body(cube, t.material, Vec3(0.5, 0.0, 1.0 + 1e-3), Quat::Identity(),
                                   Vec3(0, 0, -10));
    t.world.add_body(cube, t.material, Vec3::Zero(), Quat::Identity(), Vec3::Zero(), Vec3::Zero(),
                     true);
    t.world.initialize();
    const double e0 = t.kinetic();
    t.steps(6);  // 1 mm at 10 m/s closes within the first step (dt = 1/600 s)
    const V2Result direct = run_v2(lambda, false);
    const Vec3 v = t.world.bodies.velocity[a], w = t.world.bodies.angular_velocity[a];
    std::printf("lambda %d: world omega_y %.6f v_z %.6f\n", lambda, w.y(), v.z());
    EXPECT_NEAR((v - direct.v).norm(), 0.0, 1e-9) << "lambda " << lambda;
    EXPECT_NEAR((w - direct.w).norm(), 0.0, 1e-9) << "lambda " << lambda;
    EXPECT_NEAR(t.kinetic(), e0, 1e-12 * e0) << "lambda " << lambda;
    EXPECT_GT(t.world.bodies.position[a].z(), 1.0 + 1e-3);  // on its way back up
  }
}

}  // namespace
}  // namespace etdem
