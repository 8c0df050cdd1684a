// Closest points of separated convex polyhedra, and the box manifolds they complete: a pair apart
// by less than the margin along every separating axis must never come back empty.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "etdem/collision/closest_features.hpp"
#include "etdem/collision/collide.hpp"
#include "etdem/shapes/shape.hpp"

namespace etdem {
namespace {

Pose pose(const Vec3& x, const Quat& q = Quat::Identity()) { return Pose(x, q.normalized()); }

TEST(ClosestFeatures, CornerToCornerOfTwoCubes) {
  const ConvexPolyhedron cube = ConvexPolyhedron::box(Vec3::Constant(0.5));
  const ClosestPoints c = closest_points(cube, pose(Vec3::Zero()), cube, pose(Vec3(1.5, 1.5, 1.5)));
  EXPECT_NEAR(c.distance, 0.5 * std::sqrt(3.0), 1e-14);
  EXPECT_LT((c.on_a - Vec3::Constant(0.5)).norm(), 1e-14);
  EXPECT_LT((c.on_b - Vec3::Constant(1.0)).norm(), 1e-14);
}

TEST(ClosestFeatures, CornerAboveAFaceAndCrossedEdges) {
  const ConvexPolyhedron cube = ConvexPolyhedron::box(Vec3::Constant(0.5));
  // B stands on a corner 0.1 above the middle of A's top face: B's lowest corner is at
  // z = 0.6 + 0.5 sqrt(3) - 0.5 sqrt(3) = 0.6 when B's diagonal is vertical.
  const Quat corner_down = Quat::FromTwoVectors(Vec3(1, 1, 1).normalized(), Vec3::UnitZ());
  const ClosestPoints c =
      closest_points(cube, pose(Vec3::Zero()), cube,
                     pose(Vec3(0.1, -0.05, 0.6 + 0.5 * std::sqrt(3.0)), corner_down));
  EXPECT_NEAR(c.distance, 0.1, 1e-12);
  EXPECT_NEAR(c.on_a.z(), 0.5, 1e-12);
  // Crossed edges: B turned 90 degrees about z and lifted on an x-edge; A's top x-edge at
  // y = 0.5, z = 0.5 against B's bottom y-edge... both rotated 45 degrees about their edge.
  const Quat about_x(Eigen::AngleAxisd(M_PI / 4, Vec3::UnitX()));
  const Quat about_y(Eigen::AngleAxisd(M_PI / 4, Vec3::UnitY()));
  const double h = 0.5 * std::sqrt(2.0);
  const ClosestPoints e =
      closest_points(cube, pose(Vec3::Zero(), about_x), cube, pose(Vec3(0, 0, 2 * h + 0.2), about_y));
  EXPECT_NEAR(e.distance, 0.2, 1e-12);
}

TEST(ClosestFeatures, RandomPosesLieBetweenTheSeparationBoundAndSampledPoints) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const ConvexPolyhedron a = ConvexPolyhedron::box(Vec3(0.5, 0.3, 0.2));
  std::vector<Vec3> pts;
  for (int k = 0; k < 14; ++k) pts.push_back(0.4 * Vec3(u(rng), u(rng), u(rng)));
  const ConvexPolyhedron b = ConvexPolyhedron::from_points(pts);
  int tested = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Pose pa = pose(Vec3::Zero(), Quat(u(rng), u(rng), u(rng), u(rng)));
    const Pose pb = pose(1.2 * Vec3(u(rng), u(rng), u(rng)), Quat(u(rng), u(rng), u(rng), u(rng)));
    // Lower bound: the largest separation over the face normals of both (valid axes).
    double bound = -1e300;
    auto project = [](const ConvexPolyhedron& p, const Pose& ps, const Vec3& n, double& lo,
                      double& hi) {
      lo = 1e300, hi = -1e300;
      for (const Vec3& v : p.vertices) {
        const double x = n.dot(ps.position + ps.rotation * v);
        lo = std::min(lo, x), hi = std::max(hi, x);
      }
    };
    for (const auto* p : {&a, &b})
      for (const auto& f : p->faces) {
        const Vec3 n = (p == &a ? pa : pb).rotation * f.normal;
        double alo, ahi, blo, bhi;
        project(a, pa, n, alo, ahi);
        project(b, pb, n, blo, bhi);
        bound = std::max(bound, std::max(blo - ahi, alo - bhi));
      }
    if (bound <= 0.0) continue;  // possibly overlapping: not the function's domain
    ++tested;
    const ClosestPoints c = closest_points(a, pa, b, pb);
    EXPECT_GE(c.distance, bound - 1e-12);
    EXPECT_NEAR((c.on_a - c.on_b).norm(), c.distance, 1e-12);
    // Upper bound: any pair of points on the two bodies; the vertices are such points.
    double upper = 1e300;
    for (const Vec3& va : a.vertices)
      for (const Vec3& vb : b.vertices)
        upper = std::min(upper, (pa.position + pa.rotation * va - pb.position - pb.rotation * vb).norm());
    EXPECT_LE(c.distance, upper + 1e-12);
  }
  EXPECT_GT(tested, 100);
}

TEST(BoxBox, CornerBesideTheReferenceFaceIsReported) {
  // Two 1 cm cubes of a falling pile (the pose at which one went 2 mm deep within a step): apart
  // by less than the margin along every axis, the best axis a face of A, and the closest
  // features a corner of B beside that face. Clipping left nothing; the manifold now holds the
  // closest point pair.
  ShapeTable t;
  const int s = t.add_box("cube", Vec3::Constant(0.005));
  const Pose a = pose(Vec3(0.080838410206928335, 0.080997356270633952, 0.35012028950450119),
                      Quat(-0.93350324440563848, -0.080293923259885797, -0.32821644183690285,
                           -0.11999394101205905));
  const Pose b = pose(Vec3(0.081135467945374615, 0.080960816840724412, 0.3662947319371051),
                      Quat(-0.24898403713817463, 0.74168169200760459, 0.41299441307328955,
                           -0.46620900008618676));
  const ClosestPoints exact = closest_points(t.hull(s), a, t.hull(s), b);
  ASSERT_GT(exact.distance, 0.0);
  ASSERT_LT(exact.distance, 0.002);
  for (int order = 0; order < 2; ++order) {
    Manifold m;
    if (order == 0)
      collide(t, s, a, s, b, 0.005, m);
    else
      collide(t, s, b, s, a, 0.005, m);
    ASSERT_GE(m.count, 1) << "order " << order;
    double nearest = 1e300;
    int k_near = 0;
    for (int k = 0; k < m.count; ++k)
      if (m.gap[k] < nearest) nearest = m.gap[k], k_near = k;
    EXPECT_NEAR(nearest, exact.distance, 1e-12);
    // The normal points from the second body to the first.
    const Vec3 b_to_a = order == 0 ? Vec3(exact.on_a - exact.on_b) : Vec3(exact.on_b - exact.on_a);
    EXPECT_GT(m.normal_at(k_near).dot(b_to_a.normalized()), 1.0 - 1e-12);
  }
  // The same through the polyhedron code (a box given as its hull).
  const int p = t.add_polyhedron("cube", std::vector<Vec3>(t.hull(s).vertices));
  Manifold m;
  collide(t, p, a, p, b, 0.005, m);
  ASSERT_GE(m.count, 1);
  double nearest = 1e300;
  for (int k = 0; k < m.count; ++k) nearest = std::min(nearest, m.gap[k]);
  EXPECT_NEAR(nearest, exact.distance, 1e-12);
}

TEST(BoxBox, SeparatedPairsWithinTheMarginAreNeverEmpty) {
  // Random poses: whenever the exact distance is below the margin, a point at that distance is
  // in the manifold (box code and polyhedron code alike).
  ShapeTable t;
  const int s = t.add_box("box", Vec3(0.005, 0.004, 0.003));
  const int p = t.add_polyhedron("box", std::vector<Vec3>(t.hull(s).vertices));
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const double margin = 0.003;
  int near = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const Pose a = pose(Vec3::Zero(), Quat(u(rng), u(rng), u(rng), u(rng)));
    const Pose b = pose(0.012 * Vec3(u(rng), u(rng), u(rng)), Quat(u(rng), u(rng), u(rng), u(rng)));
    const ClosestPoints exact = closest_points(t.hull(s), a, t.hull(s), b);
    Manifold mb, mp;
    collide(t, s, a, s, b, margin, mb);
    collide(t, p, a, p, b, margin, mp);
    double sep = 0.0;  // skip overlapping pairs: there closest_points is meaningless
    {
      Manifold probe;
      collide(t, s, a, s, b, 1.0, probe);
      sep = 1e300;
      for (int k = 0; k < probe.count; ++k) sep = std::min(sep, probe.gap[k]);
    }
    if (!(sep > 0.0) || exact.distance >= margin) continue;
    ++near;
    for (const Manifold* m : {&mb, &mp}) {
      ASSERT_GE(m->count, 1) << "trial " << trial;
      double nearest = 1e300;
      for (int k = 0; k < m->count; ++k) nearest = std::min(nearest, m->gap[k]);
      EXPECT_LE(nearest, exact.distance + 1e-12) << "trial " << trial;
    }
  }
  EXPECT_GT(near, 200);
}

}  // namespace
}  // namespace etdem
