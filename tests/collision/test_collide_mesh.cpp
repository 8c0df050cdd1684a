// Narrow phase against a static triangle mesh: sphere, box and polyhedron.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "etdem/collision/collide.hpp"
#include "etdem/shapes/shape.hpp"
#include "test_mesh_helpers.hpp"

namespace etdem {
namespace {

int add(ShapeTable& t, const test::SimpleMesh& m,
        TriangleMesh::Facing f = TriangleMesh::Facing::Outward) {
  return t.add_mesh("mesh", TriangleMesh::build(m.v, m.t, f));
}

TEST(CollideMesh, SphereOnATwoTriangleFloorIsTheSphereOnAPlane) {
  ShapeTable t;
  const int s = t.add_sphere("s", 0.1);
  const int floor = add(t, test::floor_mesh(-1, 1, 1));
  const int plane = t.add_plane("p");
  ASSERT_EQ(t.mesh(floor).triangle_count(), 2);
  const Pose at_origin(Vec3::Zero(), Quat::Identity());
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> xy(-0.8, 0.8), z(0.05, 0.14);
  for (int k = 0; k < 200; ++k) {
    const Pose ps(Vec3(xy(rng), xy(rng), z(rng)), Quat::Identity());
    Manifold m, p;
    collide(t, s, ps, floor, at_origin, 0.05, m);
    collide(t, s, ps, plane, at_origin, 0.05, p);
    ASSERT_EQ(m.count, p.count) << ps.position.transpose();
    if (p.count == 0) continue;
    EXPECT_NEAR(m.gap[0], p.gap[0], 1e-15);
    EXPECT_TRUE(m.normal_at(0).isApprox(Vec3::UnitZ(), 1e-15));
    EXPECT_LT((m.point[0] - p.point[0]).norm(), 1e-15);
  }
  // Exactly over the shared diagonal: one point, normal +z.
  Manifold m;
  collide(t, s, Pose(Vec3(0.3, 0.3, 0.09), Quat::Identity()), floor, at_origin, 0.0, m);
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.gap[0], -0.01, 1e-15);
  EXPECT_TRUE(m.normal_at(0).isApprox(Vec3::UnitZ(), 1e-15));
  // A sphere under the floor does not touch it (one-sided); one that sank less than its radius
  // is pushed back up.
  collide(t, s, Pose(Vec3(0.3, -0.2, -0.15), Quat::Identity()), floor, at_origin, 0.05, m);
  EXPECT_EQ(m.count, 0);
  collide(t, s, Pose(Vec3(0.3, -0.2, -0.05), Quat::Identity()), floor, at_origin, 0.0, m);
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.gap[0], -0.15, 1e-15);
  EXPECT_TRUE(m.normal_at(0).isApprox(Vec3::UnitZ(), 1e-15));
}

TEST(CollideMesh, SphereRollingOverATessellatedFloorSeesOneFlatContact) {
  // Sphere centres along a line crossing many edges and vertices of an 8 x 8 floor (a vertex
  // every 0.25 m), including points right over edges and vertices.
  ShapeTable t;
  const int s = t.add_sphere("s", 0.1);
  const int floor = add(t, test::floor_mesh(-1, 1, 8), TriangleMesh::Facing::AsGiven);
  const Pose mesh_pose(Vec3(0, 0, 0.5), Quat::Identity());  // floor at z = 0.5
  for (int k = 0; k <= 400; ++k) {
    const double x = -0.9 + 1.8 * k / 400.0;
    for (double y : {0.0, 0.25, 0.1 + 0.3 * x}) {
      Manifold m;
      collide(t, s, Pose(Vec3(x, y, 0.5 + 0.098), Quat::Identity()), floor, mesh_pose, 0.01, m);
      ASSERT_EQ(m.count, 1) << x << " " << y;
      EXPECT_NEAR(m.gap[0], -0.002, 1e-14);
      EXPECT_TRUE(m.normal_at(0).isApprox(Vec3::UnitZ(), 1e-14)) << x << " " << y;
    }
  }
}

TEST(CollideMesh, SphereOverARidgeGetsTheEdgeNormalAndTheOrderCanBeSwapped) {
  // A roof: two triangles... as a strip of two rectangles meeting at the ridge x = 0, z = 0.5.
  test::SimpleMesh roof{{Vec3(-1, -1, 0), Vec3(0, -1, 0.5), Vec3(0, 1, 0.5), Vec3(-1, 1, 0),
                         Vec3(1, -1, 0), Vec3(1, 1, 0)},
                        {{0, 1, 2}, {0, 2, 3}, {1, 4, 5}, {1, 5, 2}}};
  ShapeTable t;
  const int s = t.add_sphere("s", 0.1);
  const int mesh = add(t, roof);
  const Pose id;
  // Right over the ridge: the closest point is the ridge, normal straight up.
  Manifold m;
  collide(t, s, Pose(Vec3(0, 0.2, 0.59), Quat::Identity()), mesh, id, 0.0, m);
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.gap[0], -0.01, 1e-14);
  EXPECT_TRUE(m.normal_at(0).isApprox(Vec3::UnitZ(), 1e-14));
  // Mesh first: same point, normal flipped.
  Manifold w;
  collide(t, mesh, id, s, Pose(Vec3(0, 0.2, 0.59), Quat::Identity()), 0.0, w);
  ASSERT_EQ(w.count, 1);
  EXPECT_TRUE(w.normal_at(0).isApprox(-Vec3::UnitZ(), 1e-14));
  // Off to the side, over the right slope: its face normal.
  const Vec3 n = Vec3(0.5, 0, 1).normalized();
  const Vec3 foot(0.5, 0.0, 0.25);
  collide(t, s, Pose(foot + 0.095 * n, Quat::Identity()), mesh, id, 0.0, m);
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.gap[0], -0.005, 1e-14);
  EXPECT_TRUE(m.normal_at(0).isApprox(n, 1e-14));
}

TEST(CollideMesh, BoxRestingOnATessellatedFloorGivesItsFourCorners) {
  ShapeTable t;
  const Vec3 half(0.3, 0.2, 0.1);
  const int box = t.add_box("b", half);
  const int floor = add(t, test::floor_mesh(-1, 1, 6), TriangleMesh::Facing::AsGiven);
  const int plane = t.add_plane("p");
  const Pose id;
  for (double angle : {0.0, 0.3, 1.1}) {
    const Pose pb(Vec3(0.07, -0.11, 0.099), Quat(Eigen::AngleAxisd(angle, Vec3::UnitZ())));
    Manifold m, p;
    collide(t, box, pb, floor, id, 0.01, m);
    collide(t, box, pb, plane, id, 0.01, p);
    ASSERT_EQ(m.count, 4) << angle;
    ASSERT_EQ(p.count, 4);
    for (int k = 0; k < 4; ++k) {
      EXPECT_NEAR(m.gap[k], -0.001, 1e-14);
      EXPECT_TRUE(m.normal_at(k).isApprox(Vec3::UnitZ(), 1e-14));
      bool matched = false;
      for (int j = 0; j < 4; ++j) matched = matched || (m.point[k] - p.point[j]).norm() < 1e-14;
      EXPECT_TRUE(matched) << m.point[k].transpose();
    }
  }
  // Tilted onto one edge: the two corners of that edge.
  const Quat tilt(Eigen::AngleAxisd(0.2, Vec3::UnitX()));
  const Vec3 low_edge = tilt * Vec3(0, -half.y(), -half.z());
  const Pose pb(Vec3(0, 0, -low_edge.z() - 0.001), tilt);
  Manifold m;
  collide(t, box, pb, floor, id, 0.0, m);
  EXPECT_EQ(m.count, 2);
  // A polyhedron (the same box as a hull) gives the same points.
  const int poly = t.add_polyhedron("h", ConvexPolyhedron::box(half));
  Manifold q;
  collide(t, poly, pb, floor, id, 0.0, q);
  ASSERT_EQ(q.count, m.count);
  for (int k = 0; k < q.count; ++k) EXPECT_NEAR(q.gap[k], m.gap[k], 1e-14);
}

TEST(CollideMesh, BoxEdgeAcrossARidgeGivesAnEdgeEdgePoint) {
  // A roof ridge along y, a box lying across it, turned 90 degrees so its bottom edges ... the
  // box's lower edge along x crosses the ridge (along y) at a right angle.
  test::SimpleMesh roof{{Vec3(-1, -1, 0), Vec3(0, -1, 0.5), Vec3(0, 1, 0.5), Vec3(-1, 1, 0),
                         Vec3(1, -1, 0), Vec3(1, 1, 0)},
                        {{0, 1, 2}, {0, 2, 3}, {1, 4, 5}, {1, 5, 2}}};
  ShapeTable t;
  const Vec3 half(0.3, 0.1, 0.1);
  const int box = t.add_box("b", half);
  const int mesh = add(t, roof);
  // Box turned 45 degrees about x: its lowest feature is an edge along x, at height
  // z_c - sqrt(2) * 0.1; the ridge along y touches it at (0, 0, 0.5).
  const Quat q(Eigen::AngleAxisd(M_PI / 4, Vec3::UnitX()));
  const double low = std::sqrt(2.0) * 0.1;
  const Pose pb(Vec3(0, 0.02, 0.5 + low - 0.002), q);
  Manifold m;
  collide(t, box, pb, mesh, Pose(), 0.0, m);
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.gap[0], -0.002, 1e-12);
  EXPECT_TRUE(m.normal_at(0).isApprox(Vec3::UnitZ(), 1e-12)) << m.normal_at(0).transpose();
  EXPECT_TRUE(m.point[0].isApprox(Vec3(0, 0.02, 0.499), 1e-12)) << m.point[0].transpose();
}

TEST(CollideMesh, ClosedCubeContainerCatchesASphereAtTheInsideWalls) {
  ShapeTable t;
  const int s = t.add_sphere("s", 0.1);
  const int box =
      add(t, test::box_mesh(Vec3(-1, -1, -1), Vec3(1, 1, 1)), TriangleMesh::Facing::Inward);
  const Pose id;
  // In the middle: nothing.
  Manifold m;
  collide(t, s, Pose(Vec3(0.2, 0.1, 0), Quat::Identity()), box, id, 0.01, m);
  EXPECT_EQ(m.count, 0);
  // Against the +x wall.
  collide(t, s, Pose(Vec3(0.905, 0.3, -0.2), Quat::Identity()), box, id, 0.0, m);
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.gap[0], -0.005, 1e-14);
  EXPECT_TRUE(m.normal_at(0).isApprox(-Vec3::UnitX(), 1e-14));
  // In the corner x = 1, y = -1, z = -1: three walls, three normals.
  collide(t, s, Pose(Vec3(0.91, -0.92, -0.93), Quat::Identity()), box, id, 0.0, m);
  ASSERT_EQ(m.count, 3);
  double gaps = 0.0;
  Vec3 nsum = Vec3::Zero();
  for (int k = 0; k < 3; ++k) gaps += m.gap[k], nsum += m.normal_at(k);
  EXPECT_NEAR(gaps, -0.01 - 0.02 - 0.03, 1e-14);
  EXPECT_TRUE(nsum.isApprox(Vec3(-1, 1, 1), 1e-14));
  // Outside the container (behind its inward walls): nothing.
  collide(t, s, Pose(Vec3(1.5, 0, 0), Quat::Identity()), box, id, 0.1, m);
  EXPECT_EQ(m.count, 0);
}

}  // namespace
}  // namespace etdem
