// Sphere-box and box-box narrow phase: known gaps, normals and points in every feature region,
// A-B / B-A symmetry through the dispatcher, and the face-clipping manifolds ETM relies on.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "etdem/collision/collide.hpp"
#include "etdem/io/fill.hpp"
#include "etdem/world/world.hpp"
#include "manifold_checks.hpp"

namespace etdem {
namespace {

constexpr double kTol = 1e-12;  // exact-arithmetic cases: only round-off
const double kSqrt2 = std::sqrt(2.0);

using test::axis_angle;
using test::expect_mirrored;
using test::expect_vec_near;
using test::has_point;

// ---------------------------------------------------------------------------------------------
// Sphere-box. The box is rotated and moved so the box-frame transform is exercised; every
// expectation is written in the box frame and mapped to world.

struct SphereBoxScene {
  ShapeTable shapes;
  int sphere = shapes.add_sphere("ball", 0.2);
  int box = shapes.add_box("brick", Vec3(1.0, 0.5, 0.25));
  Pose box_pose{Vec3(0.1, -0.2, 0.3), axis_angle(0.7, Vec3(1.0, 2.0, 3.0))};

  Vec3 world(const Vec3& local) const { return box_pose.position + box_pose.rotation * local; }
  Vec3 world_dir(const Vec3& local) const { return box_pose.rotation * local.normalized(); }
  Pose sphere_at(const Vec3& local) const { return Pose(world(local), Quat::Identity()); }

  Manifold run(const Vec3& local_centre, double margin) const {
    Manifold m;
    collide(shapes, sphere, sphere_at(local_centre), box, box_pose, margin, m);
    return m;
  }
};

TEST(SphereBox, FaceRegionGapNormalPoint) {
  SphereBoxScene s;
  // Centre 0.05 beyond the sphere radius above the +z face (half-height 0.25).
  const Manifold m = s.run(Vec3(0.3, -0.1, 0.25 + 0.2 + 0.05), 0.1);
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.gap[0], 0.05, kTol);
  expect_vec_near(m.normal, s.world_dir(Vec3::UnitZ()), kTol);
  expect_vec_near(m.point[0], s.world(Vec3(0.3, -0.1, 0.25 + 0.025)), kTol);
}

TEST(SphereBox, EdgeRegionGapNormalPoint) {
  SphereBoxScene s;
  // Beyond the edge x = +1, z = +0.25 by 0.1 along both x and z: distance 0.1 sqrt(2).
  const Manifold m = s.run(Vec3(1.1, 0.2, 0.35), 0.0);
  ASSERT_EQ(m.count, 1);
  const double gap = 0.1 * kSqrt2 - 0.2;
  EXPECT_NEAR(m.gap[0], gap, kTol);
  expect_vec_near(m.normal, s.world_dir(Vec3(1.0, 0.0, 1.0)), kTol);
  const Vec3 on_box(1.0, 0.2, 0.25);
  expect_vec_near(m.point[0], s.world(on_box + 0.5 * gap * Vec3(1.0, 0.0, 1.0).normalized()), kTol);
}

TEST(SphereBox, CornerRegionGapNormalPoint) {
  SphereBoxScene s;
  // Beyond the corner (1, 0.5, 0.25) by 0.1 on every axis: distance 0.1 sqrt(3).
  const Manifold m = s.run(Vec3(1.1, 0.6, 0.35), 0.0);
  ASSERT_EQ(m.count, 1);
  const double gap = 0.1 * std::sqrt(3.0) - 0.2;
  EXPECT_NEAR(m.gap[0], gap, kTol);
  expect_vec_near(m.normal, s.world_dir(Vec3(1.0, 1.0, 1.0)), kTol);
  const Vec3 on_box(1.0, 0.5, 0.25);
  expect_vec_near(m.point[0], s.world(on_box + 0.5 * gap * Vec3(1.0, 1.0, 1.0).normalized()), kTol);
}

TEST(SphereBox, CentreInsidePushesOutThroughLeastPenetratedFace) {
  SphereBoxScene s;
  // Depths below the faces: x 0.1, y 0.45, z 0.25 -> leave through +x; the sphere reaches 0.2
  // further, so gap = -0.1 - 0.2; the point is midway between x = 1 (box) and x = 0.7 (sphere).
  const Manifold m = s.run(Vec3(0.9, 0.05, 0.0), 0.0);
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.gap[0], -0.3, kTol);
  expect_vec_near(m.normal, s.world_dir(Vec3::UnitX()), kTol);
  expect_vec_near(m.point[0], s.world(Vec3(0.85, 0.05, 0.0)), kTol);

  // Negative side: centre near the -y face leaves through -y.
  const Manifold n = s.run(Vec3(-0.2, -0.45, 0.1), 0.0);
  ASSERT_EQ(n.count, 1);
  EXPECT_NEAR(n.gap[0], -0.05 - 0.2, kTol);
  expect_vec_near(n.normal, s.world_dir(-Vec3::UnitY()), kTol);
}

TEST(SphereBox, SeparatedBeyondMarginGivesNothing) {
  SphereBoxScene s;
  // Face region, gap 0.05: reported only when the margin exceeds it.
  EXPECT_EQ(s.run(Vec3(0.0, 0.0, 0.25 + 0.2 + 0.05), 0.049).count, 0);
  EXPECT_EQ(s.run(Vec3(0.0, 0.0, 0.25 + 0.2 + 0.05), 0.051).count, 1);
  EXPECT_EQ(s.run(Vec3(1.3, 0.7, 0.45), 0.01).count, 0);  // corner region, gap 0.146
}

TEST(SphereBox, DispatcherSymmetryFlipsNormalOnly) {
  SphereBoxScene s;
  const Vec3 centres[] = {Vec3(0.3, -0.1, 0.5), Vec3(1.1, 0.2, 0.35), Vec3(1.1, 0.6, 0.35),
                          Vec3(0.9, 0.05, 0.0)};
  for (const Vec3& c : centres) {
    Manifold ab, ba;
    collide(s.shapes, s.sphere, s.sphere_at(c), s.box, s.box_pose, 0.1, ab);
    collide(s.shapes, s.box, s.box_pose, s.sphere, s.sphere_at(c), 0.1, ba);
    ASSERT_EQ(ab.count, 1);
    expect_mirrored(ab, ba, kTol);
  }
}

// ---------------------------------------------------------------------------------------------
// Box-box.

struct BoxBoxScene {
  ShapeTable shapes;
  Manifold run(int a, const Pose& pa, int b, const Pose& pb, double margin) const {
    Manifold m;
    collide(shapes, a, pa, b, pb, margin, m);
    return m;
  }
};

TEST(BoxBox, RestingFaceOnLargerBoxGivesFourCorners) {
  BoxBoxScene s;
  const int small = s.shapes.add_box("small", Vec3(0.3, 0.4, 0.25));
  const int floor = s.shapes.add_box("slab", Vec3(2.0, 2.0, 0.5));
  const double pen = 1e-3;
  const Pose pa(Vec3(0.2, -0.3, 0.5 + 0.25 - pen), Quat::Identity());
  const Pose pb(Vec3(0.0, 0.0, 0.0), Quat::Identity());
  const Manifold m = s.run(small, pa, floor, pb, 0.01);
  ASSERT_EQ(m.count, 4);
  expect_vec_near(m.normal, Vec3::UnitZ(), kTol);
  for (double sx : {-1.0, 1.0})
    for (double sy : {-1.0, 1.0})
      EXPECT_TRUE(has_point(m, Vec3(0.2 + sx * 0.3, -0.3 + sy * 0.4, 0.5 - 0.5 * pen), -pen, 1e-9))
          << sx << " " << sy;

  // Swapped through the dispatcher: same points, normal -z.
  expect_mirrored(m, s.run(floor, pb, small, pa, 0.01), 1e-9);
}

TEST(BoxBox, HalfOffsetBoxGivesFourPointsOnTheOverlap) {
  BoxBoxScene s;
  const int cube = s.shapes.add_box("cube", Vec3(0.5, 0.5, 0.5));
  const double pen = 2e-3;
  const Pose pa(Vec3(0.5, 0.0, 1.0 - pen), Quat::Identity());
  const Pose pb(Vec3(0.0, 0.0, 0.0), Quat::Identity());
  const Manifold m = s.run(cube, pa, cube, pb, 0.0);
  ASSERT_EQ(m.count, 4);
  expect_vec_near(m.normal, Vec3::UnitZ(), kTol);
  // The overlap of the two faces is x in [0, 0.5], y in [-0.5, 0.5].
  for (double x : {0.0, 0.5})
    for (double y : {-0.5, 0.5})
      EXPECT_TRUE(has_point(m, Vec3(x, y, 0.5 - 0.5 * pen), -pen, 1e-9)) << x << " " << y;
}

TEST(BoxBox, RotatedFortyFiveDegreesGivesEightClippedPoints) {
  BoxBoxScene s;
  const int cube = s.shapes.add_box("cube", Vec3(0.5, 0.5, 0.5));
  const double pen = 1e-3;
  const Pose pa(Vec3(0.0, 0.0, 1.0 - pen), axis_angle(M_PI / 4.0, Vec3::UnitZ()));
  const Pose pb(Vec3(0.0, 0.0, 0.0), Quat::Identity());
  const Manifold m = s.run(cube, pa, cube, pb, 0.0);
  ASSERT_EQ(m.count, 8);  // the octagon where the square and the diamond overlap: all kept
  expect_vec_near(m.normal, Vec3::UnitZ(), kTol);
  const double c = 0.5 * kSqrt2 - 0.5;  // where the diamond |x| + |y| <= sqrt(2)/2 cuts x = 0.5
  for (double s1 : {-1.0, 1.0}) {
    for (double s2 : {-1.0, 1.0}) {
      const double z = 0.5 - 0.5 * pen;
      EXPECT_TRUE(has_point(m, Vec3(s1 * 0.5, s2 * c, z), -pen, 1e-9));
      EXPECT_TRUE(has_point(m, Vec3(s2 * c, s1 * 0.5, z), -pen, 1e-9));
    }
  }
  expect_mirrored(m, s.run(cube, pb, cube, pa, 0.0), 1e-9);
}

TEST(BoxBox, ManifoldFollowsARigidMotionOfTheScene) {
  // Frame independence: moving and turning both boxes together moves the manifold with them.
  BoxBoxScene s;
  const int cube = s.shapes.add_box("cube", Vec3(0.5, 0.5, 0.5));
  const double pen = 1e-3;
  const Quat qa = axis_angle(M_PI / 4.0, Vec3::UnitZ());
  const Vec3 xa(0.0, 0.0, 1.0 - pen);
  const Manifold ref = s.run(cube, Pose(xa, qa), cube, Pose(Vec3::Zero(), Quat::Identity()), 0.0);
  const Quat g = axis_angle(1.1, Vec3(-2.0, 1.0, 0.5));
  const Vec3 t(3.0, -1.0, 2.0);
  const Manifold m = s.run(cube, Pose(g * xa + t, g * qa), cube, Pose(t, g), 0.0);
  ASSERT_EQ(m.count, ref.count);
  expect_vec_near(m.normal, g * ref.normal, 1e-12);
  for (int k = 0; k < ref.count; ++k)
    EXPECT_TRUE(has_point(m, g * ref.point[k] + t, ref.gap[k], 1e-9)) << k;
}

TEST(BoxBox, CrossedEdgesGiveOnePointWithTheEdgeGap) {
  BoxBoxScene s;
  const int cube = s.shapes.add_box("cube", Vec3(0.5, 0.5, 0.5));
  // B turned 45 deg about x: top edge along x at z = sqrt(2)/2, y = 0. A turned 45 deg about y:
  // bottom edge along y at x = 0.1, z = z_a - sqrt(2)/2. The edges cross at (0.1, 0).
  const Pose pb(Vec3(0.0, 0.0, 0.0), axis_angle(M_PI / 4.0, Vec3::UnitX()));
  for (const double gap : {-0.01, 0.004}) {
    const double za = kSqrt2 + gap;
    const Pose pa(Vec3(0.1, -0.15, za), axis_angle(M_PI / 4.0, Vec3::UnitY()));
    const Manifold m = s.run(cube, pa, cube, pb, 0.01);
    ASSERT_EQ(m.count, 1) << gap;
    EXPECT_NEAR(m.gap[0], gap, 1e-12);
    expect_vec_near(m.normal, Vec3::UnitZ(), 1e-12);
    expect_vec_near(m.point[0], Vec3(0.1, 0.0, 0.5 * za), 1e-12);
    expect_mirrored(m, s.run(cube, pb, cube, pa, 0.01), 1e-12);
  }
  // Separated beyond the margin along the edge axis only: every face axis overlaps here, so
  // this checks that the nine edge axes are tested.
  const Pose far(Vec3(0.1, -0.15, kSqrt2 + 0.02), axis_angle(M_PI / 4.0, Vec3::UnitY()));
  EXPECT_EQ(s.run(cube, far, cube, pb, 0.01).count, 0);
}

TEST(BoxBox, SeparatedBeyondMarginGivesNothing) {
  BoxBoxScene s;
  const int cube = s.shapes.add_box("cube", Vec3(0.5, 0.5, 0.5));
  const Pose pb(Vec3::Zero(), Quat::Identity());
  EXPECT_EQ(s.run(cube, Pose(Vec3(0.0, 0.0, 1.02), Quat::Identity()), cube, pb, 0.01).count, 0);
  EXPECT_EQ(s.run(cube, Pose(Vec3(3.0, 0.2, 0.1), Quat::Identity()), cube, pb, 0.01).count, 0);
  EXPECT_EQ(s.run(cube, Pose(Vec3(0.0, 0.0, 1.01), Quat::Identity()), cube, pb, 0.01).count, 0);
}

TEST(BoxBox, PositiveGapWithinMarginIsReported) {
  BoxBoxScene s;
  const int cube = s.shapes.add_box("cube", Vec3(0.5, 0.5, 0.5));
  const int slab = s.shapes.add_box("slab", Vec3(2.0, 2.0, 0.5));
  const double gap = 3e-3;
  const Pose pa(Vec3(0.0, 0.0, 1.0 + gap), Quat::Identity());
  const Pose pb(Vec3::Zero(), Quat::Identity());
  const Manifold m = s.run(cube, pa, slab, pb, 0.01);
  ASSERT_EQ(m.count, 4);
  expect_vec_near(m.normal, Vec3::UnitZ(), kTol);
  for (int k = 0; k < m.count; ++k) {
    EXPECT_NEAR(m.gap[k], gap, 1e-12);
    EXPECT_NEAR(m.point[k].z(), 0.5 + 0.5 * gap, 1e-12);
  }
  // A tilted box: only the lower edge is within the margin, the upper corners are not.
  const Pose tilted(Vec3(0.0, 0.0, 0.5 * kSqrt2 + 0.5 + gap),
                    axis_angle(M_PI / 4.0, Vec3::UnitX()));
  const Manifold e = s.run(cube, tilted, slab, pb, 0.01);
  ASSERT_EQ(e.count, 2);
  expect_vec_near(e.normal, Vec3::UnitZ(), kTol);
  for (double x : {-0.5, 0.5}) EXPECT_TRUE(has_point(e, Vec3(x, 0.0, 0.5 + 0.5 * gap), gap, 1e-9));
}

TEST(BoxBox, DeepPenetrationPicksTheLeastPenetratedAxis) {
  BoxBoxScene s;
  const int cube = s.shapes.add_box("cube", Vec3(0.5, 0.5, 0.5));
  const int big = s.shapes.add_box("big", Vec3(1.0, 1.0, 1.0));
  // A's centre is inside B. Overlaps along x, y, z: 0.6, 1.4, 1.2 -> leave along +x.
  const Pose pa(Vec3(0.9, 0.1, 0.3), Quat::Identity());
  const Pose pb(Vec3::Zero(), Quat::Identity());
  const Manifold m = s.run(cube, pa, big, pb, 0.0);
  ASSERT_EQ(m.count, 4);
  expect_vec_near(m.normal, Vec3::UnitX(), kTol);
  // A's -x face (x = 0.4) against B's +x face (x = 1): points midway at x = 0.7 over A's face.
  for (double y : {-0.4, 0.6})
    for (double z : {-0.2, 0.8}) EXPECT_TRUE(has_point(m, Vec3(0.7, y, z), -0.6, 1e-9));
  expect_mirrored(m, s.run(big, pb, cube, pa, 0.0), 1e-9);
}

TEST(BoxBox, GenericPairIsSymmetricAndDeterministic) {
  BoxBoxScene s;
  const int a = s.shapes.add_box("a", Vec3(0.4, 0.3, 0.2));
  const int b = s.shapes.add_box("b", Vec3(0.6, 0.5, 0.35));
  const Pose pa(Vec3(0.15, -0.1, 0.62), axis_angle(0.3, Vec3(1.0, -0.5, 0.2)));
  const Pose pb(Vec3(0.0, 0.05, 0.0), axis_angle(-0.2, Vec3(0.3, 1.0, 0.1)));
  const Manifold ab = s.run(a, pa, b, pb, 0.01);
  ASSERT_GT(ab.count, 0);
  EXPECT_NEAR(ab.normal.norm(), 1.0, 1e-14);
  EXPECT_GT(ab.normal.dot(pa.position - pb.position), 0.0);  // from B to A
  expect_mirrored(ab, s.run(b, pb, a, pa, 0.01), 1e-9);
  const Manifold again = s.run(a, pa, b, pb, 0.01);
  ASSERT_EQ(again.count, ab.count);
  for (int k = 0; k < ab.count; ++k) {
    EXPECT_EQ(again.point[k], ab.point[k]);  // bitwise: no hidden state or randomness
    EXPECT_EQ(again.gap[k], ab.gap[k]);
  }
}

// Tumbling cubes landing on each other at dt = 1/600 s: the manifold must hold every point a
// rotation brings into contact within the step. With the edge-edge point alone (before the face
// points joined it) a 1 cm cube went 1.6 mm (16 %) deep in one step in this scene.
TEST(BoxBoxWorld, TumblingCubesLandingOnEachOtherStayShallow) {
  PortableRandom rng(3);
  double worst = 0.0;
  for (int k = 0; k < 100; ++k) {
    World w;
    w.settings.threads = 1;
    const int m = w.add_material({"c", 2400, 0.3, 0.5});
    const int s = w.shapes.add_box("b", Vec3(0.005, 0.005, 0.005));
    w.add_plane(Vec3::Zero(), Vec3::UnitZ(), m, "floor");
    const Quat q = rng.orientation();
    const Vec3 spin = 20.0 * Vec3(rng.uniform() - 0.5, rng.uniform() - 0.5, rng.uniform() - 0.5);
    w.add_body(s, m, Vec3(0, 0, 0.02), q, Vec3(0, 0, -0.5), spin);
    w.add_body(s, m, Vec3(0.003, 0.002, 0.04), rng.orientation(), Vec3(0, 0, -0.8));
    w.initialize();
    for (int i = 0; i < 200; ++i) {
      w.step();
      worst = std::max(worst, w.last_step().max_penetration);
    }
  }
  std::printf("deepest penetration %.3g m (%.1f %% of the side)\n", worst, 100 * worst / 0.01);
  EXPECT_LT(worst, 0.05 * 0.01);
}

}  // namespace
}  // namespace etdem
