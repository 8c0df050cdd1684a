// The terrain's signed distance (shapes/terrain.hpp, terrain_build.hpp) and its contacts with
// every grain shape (collision/collide_terrain.cpp).
#include <gtest/gtest.h>

#include <omp.h>

#include <cmath>
#include <cstring>
#include <random>

#include "etdem/collision/collide.hpp"
#include "etdem/shapes/level_set_build.hpp"
#include "terrain_fixture.hpp"

namespace etdem {
namespace {

using test::height_map;
using test::inclined_map;
using test::make_terrain;

TEST(TerrainDistance, ExactOnAnInclinedPlaneRaster) {
  // z = -tan(30) x over [-1, 3] x [-1, 1], pixels of 5 cm; grid spacing 4 cm (not aligned with
  // the raster), band 0.3 m. Away from the map's edges the distance is that of the plane:
  // (z + tan(30) x) cos(30) to float precision, gradient (sin 30, 0, cos 30) to its 16-bit
  // components.
  const double th = 30.0 * M_PI / 180.0;
  const auto t = make_terrain(inclined_map(30.0, -1.0, 3.0, -1.0, 1.0, 0.05), 0.04, 0.3);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> ux(-0.5, 2.5), uy(-0.5, 0.5), uz(-0.3, 0.3);
  double worst = 0.0, worst_grad = 0.0;
  for (int k = 0; k < 20000; ++k) {
    const double x = ux(rng), y = uy(rng);
    const Vec3 p(x, y, -std::tan(th) * x + uz(rng) / std::cos(th));
    const double exact = (p.z() + std::tan(th) * x) * std::cos(th);
    Vec3 g;
    const double phi = t->value_gradient(p, g);
    worst = std::max(worst, std::abs(phi - exact));
    worst_grad = std::max(worst_grad, (g - Vec3(std::sin(th), 0, std::cos(th))).norm());
    EXPECT_EQ(phi, t->value(p));
  }
  std::printf("inclined plane: max |phi - exact| %.3e m, max |grad - n| %.3e\n", worst, worst_grad);
  EXPECT_LT(worst, 2e-6);
  EXPECT_LT(worst_grad, 1e-4);
}

TEST(TerrainDistance, CurvedRasterWithinTheInterpolationBoundAndSignRight) {
  // z = A sin(a x) cos(a y), A = 0.2 m, a = pi (wavelength 2 m): principal curvatures up to
  // kappa = A a^2 = 1.97 /m. Reference: the exact distance to the same piecewise-linear
  // surface by brute force over the cells within reach. Trilinear interpolation of a distance
  // with curvature kappa (Hessian <= kappa / (1 - kappa |phi|) <= 2 kappa within |phi| < 1 /
  // (2 kappa)) errs by at most 3/8 h^2 2 kappa; the creases of the triangles add at most their
  // dihedral angle (<= kappa dx) times h / 4. With h = dx: |phi - exact| <= h^2 kappa
  // (docs/design.md "Terrain"). The sign is right wherever |exact| exceeds that bound.
  const double A = 0.2, a = M_PI, d = 0.05, h = 0.05, kappa = A * a * a;
  HeightMap map = height_map(81, 81, d, -2.0, -2.0, [&](double x, double y) {
    return A * std::sin(a * x) * std::cos(a * y);
  });
  const HeightMap copy = map;
  const auto t = make_terrain(std::move(map), h, 0.2);
  const double bound = h * h * kappa;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1.5, 1.5), uz(-0.2, 0.2);
  double worst = 0.0;
  int above = 0, below = 0;
  for (int k = 0; k < 5000; ++k) {
    const double x = u(rng), y = u(rng);
    const Vec3 p(x, y, copy.height(x, y) + uz(rng));
    Vec3 closest;
    const double dist = copy.distance(p, 0, copy.nx, 0, copy.ny, 1e9, closest);
    const double exact = p.z() >= copy.height(x, y) ? dist : -dist;
    if (std::abs(exact) > 0.18) continue;  // stay inside the band
    Vec3 g;
    const double phi = t->value_gradient(p, g);
    worst = std::max(worst, std::abs(phi - exact));
    if (std::abs(exact) > bound) {
      EXPECT_EQ(phi > 0.0, exact > 0.0) << "at " << p.transpose();
      (exact > 0.0 ? above : below)++;
    }
    EXPECT_NEAR(g.norm(), 1.0, 0.1);
  }
  std::printf("curved raster: max |phi - exact| %.3e m, bound h^2 kappa %.3e m\n", worst, bound);
  EXPECT_LT(worst, bound);
  EXPECT_GT(above, 1000);
  EXPECT_GT(below, 1000);
}

TEST(TerrainDistance, FarFromTheSurfaceTheValueIsClampedAndOffTheMapTheGroundGoesOn) {
  const auto t = make_terrain(inclined_map(0.0, 0.0, 1.0, 0.0, 1.0, 0.1), 0.1, 0.2);
  EXPECT_DOUBLE_EQ(t->value(Vec3(0.5, 0.5, 5.0)), t->stored);
  EXPECT_DOUBLE_EQ(t->value(Vec3(0.5, 0.5, -5.0)), -t->stored);
  EXPECT_NEAR(t->value(Vec3(0.5, 0.5, 0.15)), 0.15, 1e-7);
  EXPECT_NEAR(t->value(Vec3(0.5, 0.5, -0.15)), -0.15, 1e-7);
  // Off the map, beside an edge and beyond a corner, far out: the flat ground continued.
  for (const Vec3& q : {Vec3(3.0, 0.5, 0.0), Vec3(-2.0, 3.0, 0.0), Vec3(40.0, -70.0, 0.0)}) {
    for (double dz : {-0.15, 0.0, 0.15}) {
      Vec3 g;
      EXPECT_NEAR(t->value_gradient(q + Vec3(0, 0, dz), g), dz, 1e-7) << q.transpose();
      EXPECT_LT((g - Vec3::UnitZ()).norm(), 1e-4) << q.transpose();
    }
    EXPECT_DOUBLE_EQ(t->value(q + Vec3(0, 0, 5.0)), t->stored);
  }
  // A NaN point reads no terrain.
  Vec3 g;
  EXPECT_DOUBLE_EQ(t->value_gradient(Vec3(NAN, 0.5, 0.0), g), t->stored);
  EXPECT_EQ(g, Vec3::Zero());
}

/// Signed distance to the profile of a 30 degree plane raster over x in [-1, 3] continued past
/// its edges (flat at z(-1) uphill, at z(3) downhill): three pieces in the (x, z) plane, the
/// same for every y.
double continued_incline_distance(const Vec3& p) {
  using Vec2 = Eigen::Vector2d;
  const double s = std::tan(30.0 * M_PI / 180.0);
  const Vec2 q(p.x(), p.z()), a(-1.0, s), b(3.0, -3.0 * s);
  auto to_segment = [&](const Vec2& u, const Vec2& v) {
    const double f = std::clamp((q - u).dot(v - u) / (v - u).squaredNorm(), 0.0, 1.0);
    return (q - (u + f * (v - u))).norm();
  };
  const double d = std::min(
      {to_segment(Vec2(-1e3, s), a), to_segment(a, b), to_segment(b, Vec2(1e3, -3.0 * s))});
  const double H = -s * std::clamp(p.x(), -1.0, 3.0);
  return p.z() >= H ? d : -d;
}

TEST(TerrainDistance, BeyondTheRasterTheEdgeHeightsGoOnAndTheDistanceIsContinuous) {
  // A 30 degree plane raster over [-1, 3] x [-1, 1] (pixels of 5 cm; grid spacing 4 cm, band
  // 0.3 m). Beyond its edges the surface goes on at the edge heights (terrain.hpp), so the
  // ground is the profile continued_incline_distance measures, for every y. Away from the two
  // breaks in slope (0.5 m) the blend is exact to float precision; across a break it errs by at
  // most the dihedral angle times h / 4 (docs/design.md, "Terrain").
  const double h = 0.04;
  const auto t = make_terrain(inclined_map(30.0, -1.0, 3.0, -1.0, 1.0, 0.05), h, 0.3);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> ux(-3.0, 6.0), uy(-4.0, 4.0), uz(-0.25, 0.25);
  double worst_plane = 0.0, worst_break = 0.0;
  int off_map = 0;
  for (int k = 0; k < 20000; ++k) {
    const double x = ux(rng), y = uy(rng);
    const Vec3 p(x, y, -std::tan(M_PI / 6) * std::clamp(x, -1.0, 3.0) + uz(rng));
    const double exact = continued_incline_distance(p);
    if (std::abs(exact) > 0.25) continue;
    const double err = std::abs(t->value(p) - exact);
    const bool near_break = std::abs(x + 1.0) < 0.5 || std::abs(x - 3.0) < 0.5;
    (near_break ? worst_break : worst_plane) =
        std::max(near_break ? worst_break : worst_plane, err);
    if (x < -1.0 || x > 3.0 || std::abs(y) > 1.0) ++off_map;
  }
  const double bound = (M_PI / 6) * h / 4;
  std::printf(
      "continued incline: max error %.3e m on the planes, %.3e m at the breaks (bound "
      "%.3e m), %d points off the raster\n",
      worst_plane, worst_break, bound, off_map);
  EXPECT_LT(worst_plane, 2e-6);
  EXPECT_LT(worst_break, bound);
  EXPECT_GT(off_map, 10000);
  // Continuous across every edge and corner of the raster: on lines crossing them in 1 mm
  // steps the value changes by at most the step (a distance is 1-Lipschitz; 2 % for the blend
  // at the breaks). Before the ground went on, the value jumped from the depth to +stored.
  for (const Vec3& dir : {Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(1, 1, 0).normalized()})
    for (const Vec3& mid : {Vec3(3.0, 0.2, 0.0), Vec3(-1.0, -0.3, 0.0), Vec3(1.0, 1.0, 0.0),
                            Vec3(3.0, 1.0, 0.0), Vec3(-1.0, -1.0, 0.0)})
      for (double dz : {-0.1, -0.02, 0.03}) {
        double worst = 0.0;
        const Vec3 base = mid + Vec3(0, 0, -std::tan(M_PI / 6) * mid.x() + dz);
        for (int k = -300; k < 300; ++k) {
          const Vec3 p = base + 1e-3 * k * dir, q = p + 1e-3 * dir;
          worst = std::max(worst, std::abs(t->value(q) - t->value(p)) / 1e-3);
        }
        EXPECT_LT(worst, 1.02) << "across " << mid.transpose() << " along " << dir.transpose()
                               << " at dz " << dz;
      }
}

TEST(TerrainDistance, BandIsTheSameForAnyThreadCount) {
  auto build = [](int threads) {
    omp_set_num_threads(threads);
    return make_terrain(height_map(60, 50, 0.1, 0.0, 0.0,
                                   [](double x, double y) { return 0.3 * std::sin(2 * x + y); }),
                        0.07, 0.25);
  };
  const int before = omp_get_max_threads();
  const auto one = build(1), two = build(2);
  omp_set_num_threads(before);
  ASSERT_EQ(one->nodes.size(), two->nodes.size());
  EXPECT_EQ(
      std::memcmp(one->nodes.data(), two->nodes.data(), one->nodes.size() * sizeof(TerrainNode)),
      0);
  // Every column stores only nodes within the stored band, and the band is the whole range
  // where |phi| < stored (the nodes just outside each run are at +-stored).
  for (const TerrainColumn& c : one->columns)
    for (int k = 0; k < c.count; ++k) EXPECT_LT(std::abs(one->nodes[c.start + k].phi), one->stored);
}

// ---- contacts --------------------------------------------------------------------------------

/// A flat terrain at z = 0 over [-2, 2]^2 and a plane at z = 0: every grain shape placed on it
/// gives the same deepest gap and an upward normal on both.
struct FlatScene {
  ShapeTable shapes;
  int terrain = -1, plane = -1;
  FlatScene() {
    terrain = shapes.add_terrain(
        "flat",
        make_terrain(height_map(41, 41, 0.1, -2.0, -2.0, [](double, double) { return 0.0; }), 0.1,
                     0.8));
    plane = shapes.add_plane("plane");
  }
};

void expect_same_as_plane(FlatScene& s, int grain, const Pose& pose, double margin,
                          const char* what) {
  Manifold on_terrain, on_plane;
  collide(s.shapes, grain, pose, s.terrain, Pose(), margin, on_terrain);
  collide(s.shapes, grain, pose, s.plane, Pose(), margin, on_plane);
  ASSERT_GT(on_plane.count, 0) << what;
  ASSERT_GT(on_terrain.count, 0) << what;
  double gt = 1e9, gp = 1e9;
  for (int k = 0; k < on_terrain.count; ++k) {
    gt = std::min(gt, on_terrain.gap[k]);
    EXPECT_NEAR(on_terrain.normal_at(k).z(), 1.0, 1e-6) << what;
  }
  for (int k = 0; k < on_plane.count; ++k) gp = std::min(gp, on_plane.gap[k]);
  EXPECT_NEAR(gt, gp, 1e-6) << what;
  EXPECT_LE(on_terrain.count, Manifold::kMaxPoints);
}

TEST(TerrainContacts, EveryGrainShapeMeetsAFlatTerrainAsItMeetsAPlane) {
  FlatScene s;
  const Quat tilt(Eigen::AngleAxisd(0.3, Vec3(1, 2, 0).normalized()));
  const int sphere = s.shapes.add_sphere("sphere", 0.2);
  expect_same_as_plane(s, sphere, Pose(Vec3(0.13, -0.4, 0.19), Quat::Identity()), 0.05, "sphere");
  const int box = s.shapes.add_box("box", Vec3(0.3, 0.2, 0.1));
  expect_same_as_plane(s, box, Pose(Vec3(0.2, 0.1, 0.15), tilt), 0.05, "box");
  const std::vector<Vec3> rock = {Vec3(0.5, 0, 0),   Vec3(-0.4, 0.1, 0), Vec3(0, 0.45, 0.1),
                                  Vec3(0, -0.35, 0), Vec3(0.1, 0, 0.4),  Vec3(0, 0.1, -0.3)};
  const int poly = s.shapes.add_polyhedron("rock", rock);
  expect_same_as_plane(s, poly, Pose(Vec3(-0.3, 0.2, 0.28), tilt), 0.05, "polyhedron");
  const int cube = s.shapes.add_box("cube", Vec3(0.1, 0.1, 0.1));
  const std::vector<CompoundPart> parts = {
      {cube, Vec3(-0.1, 0, 0)}, {cube, Vec3(0.1, 0, 0)}, {cube, Vec3(0.1, 0.2, 0)}};
  const int ell = s.shapes.add_compound("ell", make_compound(s.shapes, parts));
  expect_same_as_plane(s, ell, Pose(Vec3(0.0, 0.0, 0.12), tilt), 0.05, "compound");
  const int grain = s.shapes.add_level_set(
      "grain", level_set_superellipsoid(Vec3(0.25, 0.2, 0.15), 0.6, 0.8, {0.02, 300}));
  expect_same_as_plane(s, grain, Pose(Vec3(0.1, 0.3, 0.16), tilt), 0.05, "level set");
}

TEST(TerrainContacts, APeakPokingIntoABoxFaceIsFelt) {
  // A single raised raster node (a spike 5 cm high) under a wide box whose corners all rest
  // outside it: only the raster node against the box's hull sees the spike.
  ShapeTable shapes;
  HeightMap m = height_map(41, 41, 0.1, -2.0, -2.0, [](double, double) { return 0.0; });
  m.z[20 + 41 * 20] = 0.05;  // node (0, 0)
  const int t = shapes.add_terrain("spike", make_terrain(std::move(m), 0.1, 0.8));
  const int box = shapes.add_box("box", Vec3(0.5, 0.5, 0.1));
  Manifold out;
  collide(shapes, box, Pose(Vec3(0.0, 0.0, 0.14), Quat::Identity()), t, Pose(), 0.02, out);
  ASSERT_GT(out.count, 0);
  double deepest = 1e9;
  int k_deep = 0;
  for (int k = 0; k < out.count; ++k)
    if (out.gap[k] < deepest) deepest = out.gap[k], k_deep = k;
  EXPECT_NEAR(deepest, -0.01, 1e-9);  // the spike's tip is 1 cm inside the box's bottom face
  EXPECT_NEAR(out.normal_at(k_deep).z(), 1.0, 1e-12);
  EXPECT_NEAR(out.point[k_deep].x(), 0.0, 1e-9);
}

TEST(TerrainContacts, GrainsAboveTheTerrainsHeightsAreRejectedAndOffTheMapTheGroundGoesOn) {
  FlatScene s;
  const int sphere = s.shapes.add_sphere("sphere", 0.2);
  Manifold out;
  collide(s.shapes, sphere, Pose(Vec3(0, 0, 0.5), Quat::Identity()), s.terrain, Pose(), 0.05, out);
  EXPECT_EQ(out.count, 0);
  // Off the map the flat ground goes on: the same contact as over it.
  collide(s.shapes, sphere, Pose(Vec3(5, 0, 0.1), Quat::Identity()), s.terrain, Pose(), 0.05, out);
  ASSERT_EQ(out.count, 1);
  EXPECT_NEAR(out.gap[0], -0.1, 1e-7);
  EXPECT_LT((out.normal - Vec3::UnitZ()).norm(), 1e-4);
  collide(s.shapes, sphere, Pose(Vec3(5, 0, 0.5), Quat::Identity()), s.terrain, Pose(), 0.05, out);
  EXPECT_EQ(out.count, 0);
  EXPECT_FALSE(s.shapes.may_reach(s.terrain, Vec3::Zero(), Quat::Identity(), Vec3(0, 0, 0.5), 0.3));
  EXPECT_TRUE(s.shapes.may_reach(s.terrain, Vec3::Zero(), Quat::Identity(), Vec3(0, 0, 0.5), 0.6));
  EXPECT_FALSE(s.shapes.may_reach(s.terrain, Vec3::Zero(), Quat::Identity(), Vec3(9, 4, 0.5), 0.3));
  EXPECT_TRUE(s.shapes.may_reach(s.terrain, Vec3::Zero(), Quat::Identity(), Vec3(9, 4, 0.5), 0.6));
}

}  // namespace
}  // namespace etdem
