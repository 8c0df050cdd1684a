// Narrow phase of convex polyhedra against spheres, planes, boxes and polyhedra: known gaps,
// normals and points for vertex-face, edge-edge and face-face contacts, A-B / B-A symmetry
// through the dispatcher, agreement with the box code for boxes given as polyhedra, and the SAT's
// pruned edge axes against a brute-force search over every axis.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "etdem/collision/collide.hpp"
#include "etdem/collision/collide_convex.hpp"
#include "manifold_checks.hpp"

namespace etdem {
namespace {

constexpr double kTol = 1e-12;
const double kSqrt2 = std::sqrt(2.0);

using test::axis_angle;
using test::expect_mirrored;
using test::expect_vec_near;
using test::has_point;

/// Same normal, same points and gaps in any order.
void expect_same(const Manifold& a, const Manifold& b, double tol) {
  ASSERT_EQ(a.count, b.count);
  expect_vec_near(a.normal, b.normal, tol);
  for (int k = 0; k < a.count; ++k)
    EXPECT_TRUE(has_point(b, a.point[k], a.gap[k], tol)) << "point " << k;
}

std::vector<Vec3> box_corners(const Vec3& h) {
  std::vector<Vec3> p;
  for (int k = 0; k < 8; ++k)
    p.emplace_back((k & 1) ? h.x() : -h.x(), (k & 2) ? h.y() : -h.y(), (k & 4) ? h.z() : -h.z());
  return p;
}

/// Prism: regular n-gon of circumradius r in z = +-h.
std::vector<Vec3> prism(int n, double r, double h) {
  std::vector<Vec3> p;
  for (int k = 0; k < n; ++k) {
    const double a = 2.0 * M_PI * k / n;
    p.emplace_back(r * std::cos(a), r * std::sin(a), -h);
    p.emplace_back(r * std::cos(a), r * std::sin(a), h);
  }
  return p;
}

Manifold run(const ShapeTable& t, int a, const Pose& pa, int b, const Pose& pb, double margin) {
  Manifold m;
  collide(t, a, pa, b, pb, margin, m);
  return m;
}

/// World position of body-frame point x of a body at pose p.
Vec3 at(const Pose& p, const Vec3& x) {
  return p.position + p.rotation * x;
}

/// Separation of the two shapes' hulls along the unit axis n (from B to A), by support functions.
double projected_separation(const ConvexPolyhedron& a, const Pose& pa, const ConvexPolyhedron& b,
                            const Pose& pb, const Vec3& n) {
  const Vec3 lo_a = at(pa, a.support(pa.rotation.transpose() * -n));
  const Vec3 hi_b = at(pb, b.support(pb.rotation.transpose() * n));
  return n.dot(lo_a) - n.dot(hi_b);
}

/// Largest separation over every face normal and every edge-edge cross product (no pruning).
double brute_force_separation(const ConvexPolyhedron& a, const Pose& pa, const ConvexPolyhedron& b,
                              const Pose& pb) {
  double best = -1e300;
  auto axis = [&](Vec3 n) {
    const Vec3 d = pa.position - pb.position;
    if (n.dot(d) < 0.0) n = -n;
    best = std::max(
        {best, projected_separation(a, pa, b, pb, n), projected_separation(a, pa, b, pb, -n)});
  };
  for (const auto& f : a.faces) axis(pa.rotation * f.normal);
  for (const auto& f : b.faces) axis(pb.rotation * f.normal);
  for (const auto& ea : a.edges)
    for (const auto& eb : b.edges) {
      const Vec3 da = pa.rotation * (a.vertices[ea.v1] - a.vertices[ea.v0]);
      const Vec3 db = pb.rotation * (b.vertices[eb.v1] - b.vertices[eb.v0]);
      const Vec3 n = da.cross(db);
      if (n.norm() > 1e-5 * da.norm() * db.norm()) axis(n.normalized());
    }
  return best;
}

struct Scene {
  ShapeTable t;
  int sphere = t.add_sphere("ball", 0.2);
  int plane = t.add_plane("floor");
  int box = t.add_box("cube", Vec3(0.5, 0.5, 0.5));
  int pcube = t.add_polyhedron("pcube", box_corners(Vec3(0.5, 0.5, 0.5)));
  int brick = t.add_box("brick", Vec3(1.0, 0.5, 0.25));
  int pbrick = t.add_polyhedron("pbrick", box_corners(Vec3(1.0, 0.5, 0.25)));
  // A tetrahedron with its apex straight down in the input frame: base triangle at z = 0.25, apex
  // (0, 0, -0.75); the shape is re-centred at its centre of mass and turned to principal axes.
  int tet =
      t.add_polyhedron("tet", std::vector<Vec3>{Vec3(0.6, 0.0, 0.25), Vec3(-0.3, 0.5, 0.25),
                                                Vec3(-0.3, -0.5, 0.25), Vec3(0.0, 0.0, -0.75)});
  const ConvexPolyhedron& tet_hull() const { return t.polyhedron(tet); }
};

// ---------------------------------------------------------------------------------------------
// Sphere-polyhedron.

TEST(SpherePolyhedron, AgreesWithTheBoxCodeOnABrickHull) {
  // The brick as a polyhedron has the brick's own frame (its inertia is diagonal), so the two
  // shapes are the same solid at the same pose: every region (face, edge, corner, inside) must
  // give the same manifold.
  Scene s;
  ASSERT_LT(s.t.polyhedron(s.pbrick).input_centre.norm(), 1e-15);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Pose pb(Vec3(0.1, -0.2, 0.3), axis_angle(0.7, Vec3(1.0, 2.0, 3.0)));
  int regions[2] = {0, 0};
  for (int trial = 0; trial < 4000; ++trial) {
    const Vec3 local(1.4 * u(rng), 0.9 * u(rng), 0.65 * u(rng));
    const Pose pa(at(pb, local), Quat::Identity());
    const Manifold box = run(s.t, s.sphere, pa, s.brick, pb, 0.1);
    const Manifold poly = run(s.t, s.sphere, pa, s.pbrick, pb, 0.1);
    ASSERT_EQ(box.count, poly.count) << trial;
    if (box.count == 0) continue;
    ++regions[(local.cwiseAbs().array() <= Vec3(1.0, 0.5, 0.25).array()).all() ? 1 : 0];
    expect_same(box, poly, 1e-12);
    expect_mirrored(poly, run(s.t, s.pbrick, pb, s.sphere, pa, 0.1), 1e-12);
  }
  EXPECT_GT(regions[0], 500);  // outside: face, edge and corner regions
  EXPECT_GT(regions[1], 100);  // centre inside
}

TEST(SpherePolyhedron, TetrahedronVertexEdgeAndFaceRegions) {
  Scene s;
  const ConvexPolyhedron& h = s.tet_hull();
  const Pose pb(Vec3(1.0, 2.0, 3.0), axis_angle(0.4, Vec3(0.2, -1.0, 0.3)));
  const double r = 0.2;
  // Face region: along a face normal from the face centroid.
  for (int f = 0; f < h.face_count(); ++f) {
    Vec3 c = Vec3::Zero();
    for (int v : h.face(f)) c += h.vertices[v];
    c /= 3.0;
    const Vec3 n = h.faces[f].normal;
    const Manifold m =
        run(s.t, s.sphere, Pose(at(pb, c + (r + 0.03) * n), Quat::Identity()), s.tet, pb, 0.05);
    ASSERT_EQ(m.count, 1);
    EXPECT_NEAR(m.gap[0], 0.03, kTol);
    expect_vec_near(m.normal, pb.rotation * n, kTol);
    expect_vec_near(m.point[0], at(pb, c + 0.015 * n), kTol);
  }
  // Vertex region: beyond the apex (the lowest vertex), along the outward mean of its face
  // normals, which lies in the vertex's normal cone.
  const int apex = h.support_index(h.input_rotation.conjugate() * -Vec3::UnitZ());
  Vec3 dir = Vec3::Zero();
  for (int f = 0; f < h.face_count(); ++f)
    for (int v : h.face(f))
      if (v == apex) dir += h.faces[f].normal;
  dir.normalize();
  {
    const Manifold m =
        run(s.t, s.sphere, Pose(at(pb, h.vertices[apex] + (r - 0.01) * dir), Quat::Identity()),
            s.tet, pb, 0.0);
    ASSERT_EQ(m.count, 1);
    EXPECT_NEAR(m.gap[0], -0.01, kTol);
    expect_vec_near(m.normal, pb.rotation * dir, kTol);
    expect_vec_near(m.point[0], at(pb, h.vertices[apex] - 0.005 * dir), kTol);
  }
  // Edge region: beyond an edge's midpoint along the mean of its two face normals.
  for (const auto& e : h.edges) {
    const Vec3 mid = 0.5 * (h.vertices[e.v0] + h.vertices[e.v1]);
    const Vec3 n = (h.faces[e.f0].normal + h.faces[e.f1].normal).normalized();
    const Manifold m =
        run(s.t, s.sphere, Pose(at(pb, mid + (r + 0.02) * n), Quat::Identity()), s.tet, pb, 0.05);
    ASSERT_EQ(m.count, 1);
    EXPECT_NEAR(m.gap[0], 0.02, kTol);
    expect_vec_near(m.normal, pb.rotation * n, kTol);
    expect_vec_near(m.point[0], at(pb, mid + 0.01 * n), kTol);
  }
  // Centre inside, nearest the face f: out through f.
  {
    const int f = 0;
    Vec3 c = Vec3::Zero();
    for (int v : h.face(f)) c += h.vertices[v];
    c /= 3.0;
    const Vec3 n = h.faces[f].normal;
    const Manifold m =
        run(s.t, s.sphere, Pose(at(pb, c - 0.02 * n), Quat::Identity()), s.tet, pb, 0.0);
    ASSERT_EQ(m.count, 1);
    EXPECT_NEAR(m.gap[0], -0.02 - r, kTol);
    expect_vec_near(m.normal, pb.rotation * n, kTol);
  }
  // Beyond the margin: nothing.
  EXPECT_EQ(run(s.t, s.sphere, Pose(at(pb, h.vertices[apex] + (r + 0.06) * dir), Quat::Identity()),
                s.tet, pb, 0.05)
                .count,
            0);
}

// ---------------------------------------------------------------------------------------------
// Polyhedron-plane.

TEST(PolyhedronPlane, AgreesWithTheBoxCodeOnRandomPoses) {
  Scene s;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Pose floor(Vec3(0.3, -0.1, 0.2), axis_angle(0.2, Vec3(1.0, 0.5, 0.0)));
  int touching = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const Quat q =
        Quat(Vec3(u(rng), u(rng), u(rng)).normalized().x(), u(rng), u(rng), u(rng)).normalized();
    const Pose pa(floor.position + floor.rotation * Vec3(u(rng), u(rng), 1.2 * u(rng)), q);
    const Manifold box = run(s.t, s.brick, pa, s.plane, floor, 0.05);
    const Manifold poly = run(s.t, s.pbrick, pa, s.plane, floor, 0.05);
    ASSERT_EQ(box.count, poly.count);
    if (box.count == 0) continue;
    ++touching;
    expect_same(box, poly, 1e-12);
    expect_mirrored(poly, run(s.t, s.plane, floor, s.pbrick, pa, 0.05), 1e-12);
  }
  EXPECT_GT(touching, 500);
}

TEST(PolyhedronPlane, ApexDownGivesOnePointFlatFaceGivesAllItsVertices) {
  Scene s;
  const ConvexPolyhedron& h = s.tet_hull();
  const Pose floor(Vec3::Zero(), Quat::Identity());
  // Input frame upright (apex down); the body's orientation is input_rotation.
  const Quat q = h.input_rotation;
  const double apex_below = -(q * h.support(q.conjugate() * -Vec3::UnitZ())).z();
  const Pose pa(Vec3(0.2, 0.1, apex_below + 0.004), q);
  const Manifold m = run(s.t, s.tet, pa, s.plane, floor, 0.01);
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.gap[0], 0.004, kTol);
  expect_vec_near(m.normal, Vec3::UnitZ(), kTol);
  // With the body turned by input_rotation the input frame is the world frame: the apex, input
  // (0, 0, -0.75), is at the position plus (apex - input centre).
  const Vec3 c = h.input_centre;
  expect_vec_near(m.point[0], Vec3(0.2 - c.x(), 0.1 - c.y(), 0.002), kTol);
  // Upside down (base triangle on the floor): its three vertices.
  const Quat flip = axis_angle(M_PI, Vec3::UnitX()) * q;
  const double base_below = -(flip * h.support(flip.conjugate() * -Vec3::UnitZ())).z();
  const Manifold b =
      run(s.t, s.tet, Pose(Vec3(0, 0, base_below - 1e-3), flip), s.plane, floor, 0.0);
  ASSERT_EQ(b.count, 3);
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(b.gap[k], -1e-3, kTol);
    EXPECT_NEAR(b.point[k].z(), -0.5e-3, kTol);
  }
}

TEST(PolyhedronPlane, ManyVerticesOnThePlaneAreReducedToSixteenKeepingTheDeepest) {
  ShapeTable t;
  const int p24 = t.add_polyhedron("prism24", prism(24, 0.5, 0.1));
  const int plane = t.add_plane("floor");
  ASSERT_EQ(t.polyhedron(p24).face_count(), 26);
  // Tilted a little about x: all 24 lower vertices within the margin, the deepest at y = -0.5.
  const Quat q = axis_angle(0.01, Vec3::UnitX());
  const Pose pa(Vec3(0, 0, 0.1), q);
  const Manifold m = run(t, p24, pa, plane, Pose(Vec3::Zero(), Quat::Identity()), 0.02);
  ASSERT_EQ(m.count, Manifold::kMaxPoints);
  double deepest = 1e9, kept_deepest = 1e9;
  for (const Vec3& v : t.polyhedron(p24).vertices) deepest = std::min(deepest, at(pa, v).z());
  for (int k = 0; k < m.count; ++k) kept_deepest = std::min(kept_deepest, m.gap[k]);
  EXPECT_NEAR(kept_deepest, deepest, kTol);
  // The kept points span the whole base: the centroid of the 16 stays near the centre.
  Vec3 c = Vec3::Zero();
  for (int k = 0; k < m.count; ++k) c += m.point[k];
  c /= m.count;
  EXPECT_LT(std::hypot(c.x(), c.y()), 0.1);
  double extent = 0.0;
  for (int k = 0; k < m.count; ++k)
    extent = std::max(extent, std::hypot(m.point[k].x(), m.point[k].y()));
  EXPECT_NEAR(extent, 0.5, 1e-3);
}

// ---------------------------------------------------------------------------------------------
// Polyhedron-polyhedron.

TEST(PolyhedronPolyhedron, ApexOnAFaceIsOneVertexFacePoint) {
  Scene s;
  const ConvexPolyhedron& h = s.tet_hull();
  const Quat q = h.input_rotation;  // apex straight down
  const Vec3 apex_body = h.support(q.conjugate() * -Vec3::UnitZ());
  const Pose pb(Vec3::Zero(), Quat::Identity());  // cube, top face z = 0.5
  for (const double gap : {-0.003, 0.004}) {
    const Vec3 apex_world(0.1, -0.2, 0.5 + gap);
    const Pose pa(apex_world - q * apex_body, q);
    const Manifold m = run(s.t, s.tet, pa, s.pcube, pb, 0.01);
    ASSERT_EQ(m.count, 1) << gap;
    EXPECT_NEAR(m.gap[0], gap, kTol);
    expect_vec_near(m.normal, Vec3::UnitZ(), kTol);
    expect_vec_near(m.point[0], Vec3(0.1, -0.2, 0.5 + 0.5 * gap), kTol);
    expect_mirrored(m, run(s.t, s.pcube, pb, s.tet, pa, 0.01), kTol);
    // The same against the box shape (box-polyhedron pair) and the box's plane.
    expect_same(m, run(s.t, s.tet, pa, s.box, pb, 0.01), kTol);
    expect_mirrored(m, run(s.t, s.box, pb, s.tet, pa, 0.01), kTol);
  }
}

TEST(PolyhedronPolyhedron, CrossedEdgesGiveOnePointWithTheEdgeGap) {
  // The box-box test's configuration with both cubes as polyhedra.
  Scene s;
  const Pose pb(Vec3(0.0, 0.0, 0.0), axis_angle(M_PI / 4.0, Vec3::UnitX()));
  for (const double gap : {-0.01, 0.004}) {
    const double za = kSqrt2 + gap;
    const Pose pa(Vec3(0.1, -0.15, za), axis_angle(M_PI / 4.0, Vec3::UnitY()));
    const Manifold m = run(s.t, s.pcube, pa, s.pcube, pb, 0.01);
    ASSERT_EQ(m.count, 1) << gap;
    EXPECT_NEAR(m.gap[0], gap, 1e-12);
    expect_vec_near(m.normal, Vec3::UnitZ(), 1e-12);
    expect_vec_near(m.point[0], Vec3(0.1, 0.0, 0.5 * za), 1e-12);
    expect_mirrored(m, run(s.t, s.pcube, pb, s.pcube, pa, 0.01), 1e-12);
    expect_same(m, run(s.t, s.box, pa, s.pcube, pb, 0.01), 1e-12);
  }
  // Separated beyond the margin along the edge axis only (every face axis overlaps).
  const Pose far(Vec3(0.1, -0.15, kSqrt2 + 0.02), axis_angle(M_PI / 4.0, Vec3::UnitY()));
  EXPECT_EQ(run(s.t, s.pcube, far, s.pcube, pb, 0.01).count, 0);
}

TEST(PolyhedronPolyhedron, FaceContactsKeepEveryClippedPoint) {
  Scene s;
  const Pose pb(Vec3::Zero(), Quat::Identity());
  const double pen = 2e-3;
  // Half offset: the overlap x in [0, 0.5], y in [-0.5, 0.5]; four points.
  {
    const Pose pa(Vec3(0.5, 0.0, 1.0 - pen), Quat::Identity());
    const Manifold m = run(s.t, s.pcube, pa, s.pcube, pb, 0.0);
    ASSERT_EQ(m.count, 4);
    expect_vec_near(m.normal, Vec3::UnitZ(), kTol);
    for (double x : {0.0, 0.5})
      for (double y : {-0.5, 0.5})
        EXPECT_TRUE(has_point(m, Vec3(x, y, 0.5 - 0.5 * pen), -pen, 1e-12)) << x << " " << y;
    expect_mirrored(m, run(s.t, s.pcube, pb, s.pcube, pa, 0.0), 1e-12);
  }
  // Turned 45 degrees about z: the octagon of the square and the diamond, eight points.
  {
    const Pose pa(Vec3(0.0, 0.0, 1.0 - pen), axis_angle(M_PI / 4.0, Vec3::UnitZ()));
    const Manifold m = run(s.t, s.pcube, pa, s.pcube, pb, 0.0);
    ASSERT_EQ(m.count, 8);
    const double c = 0.5 * kSqrt2 - 0.5;
    for (double s1 : {-1.0, 1.0})
      for (double s2 : {-1.0, 1.0}) {
        EXPECT_TRUE(has_point(m, Vec3(s1 * 0.5, s2 * c, 0.5 - 0.5 * pen), -pen, 1e-12));
        EXPECT_TRUE(has_point(m, Vec3(s2 * c, s1 * 0.5, 0.5 - 0.5 * pen), -pen, 1e-12));
      }
  }
  // A triangular prism lying on a triangle face inside the cube's top face: three points.
  {
    ShapeTable t;
    const int tri = t.add_polyhedron("tri", prism(3, 0.3, 0.2));
    const int cube = t.add_polyhedron("cube", box_corners(Vec3(0.5, 0.5, 0.5)));
    const Pose pa(Vec3(0.05, 0.0, 0.5 + 0.2 - pen), Quat::Identity());
    ASSERT_LT(t.polyhedron(tri).input_rotation.angularDistance(Quat::Identity()), 1e-15);
    const Manifold m = run(t, tri, pa, cube, pb, 0.0);
    ASSERT_EQ(m.count, 3);
    expect_vec_near(m.normal, Vec3::UnitZ(), kTol);
    for (int k = 0; k < 3; ++k) {
      const double a = 2.0 * M_PI * k / 3;
      EXPECT_TRUE(has_point(m, Vec3(0.05 + 0.3 * std::cos(a), 0.3 * std::sin(a), 0.5 - 0.5 * pen),
                            -pen, 1e-12));
    }
  }
}

TEST(PolyhedronPolyhedron, ShallowAndDeepPenetration) {
  ShapeTable t;
  const int cube = t.add_polyhedron("cube", box_corners(Vec3(0.5, 0.5, 0.5)));
  const int big = t.add_polyhedron("big", box_corners(Vec3(1.0, 1.0, 1.0)));
  const Pose pb(Vec3::Zero(), Quat::Identity());
  // Deep: overlaps along x, y, z of 0.6, 1.4, 1.2 -> out along +x, gap -0.6 on A's -x face.
  {
    const Pose pa(Vec3(0.9, 0.1, 0.3), Quat::Identity());
    const Manifold m = run(t, cube, pa, big, pb, 0.0);
    ASSERT_EQ(m.count, 4);
    expect_vec_near(m.normal, Vec3::UnitX(), kTol);
    for (double y : {-0.4, 0.6})
      for (double z : {-0.2, 0.8}) EXPECT_TRUE(has_point(m, Vec3(0.7, y, z), -0.6, 1e-12));
    expect_mirrored(m, run(t, big, pb, cube, pa, 0.0), 1e-12);
  }
  // Shallow, positive gap within the margin: reported with that gap; beyond it, nothing.
  {
    const Pose pa(Vec3(0.2, 0.3, 1.5 + 3e-3), Quat::Identity());
    const Manifold m = run(t, cube, pa, big, pb, 0.01);
    ASSERT_EQ(m.count, 4);
    for (int k = 0; k < 4; ++k) EXPECT_NEAR(m.gap[k], 3e-3, 1e-12);
    EXPECT_EQ(run(t, cube, pa, big, pb, 2.9e-3).count, 0);
  }
}

TEST(PolyhedronPolyhedron, ManyClippedPointsAreReducedToSixteen) {
  // Two 20-gon prisms face on face, one turned by half a sector: the clipped polygon has 40
  // vertices; 16 are kept, among them the deepest.
  ShapeTable t;
  const int p = t.add_polyhedron("p20", prism(20, 0.5, 0.1));
  const Pose pb(Vec3::Zero(), Quat::Identity());
  const Pose pa(Vec3(0, 0, 0.2 - 1e-3),
                axis_angle(M_PI / 20.0, Vec3::UnitZ()) * axis_angle(1e-3, Vec3::UnitX()));
  const Manifold m = run(t, p, pa, p, pb, 0.01);
  ASSERT_EQ(m.count, Manifold::kMaxPoints);
  expect_vec_near(m.normal, Vec3::UnitZ(), 1e-3);
  for (int k = 0; k < m.count; ++k) {
    EXPECT_LT(std::hypot(m.point[k].x(), m.point[k].y()), 0.5 + 1e-9);  // on the overlap
    EXPECT_LT(m.gap[k], 0.0);
  }
}

TEST(PolyhedronPolyhedron, BoxesAsPolyhedraAgreeWithTheBoxCodeOnRandomPoses) {
  // Random boxes in random poses, brought into contact along a random direction. The box code
  // (collide_box_box) and the polyhedron code must give the same normal, the same gaps (1e-9)
  // and the same points, including the number of points of every face-face contact.
  std::mt19937_64 rng(2025);
  std::uniform_real_distribution<double> u(-1.0, 1.0), size(0.2, 1.0), pen(-0.03, 0.08);
  int compared = 0, face = 0, edge = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    ShapeTable t;
    const Vec3 ha(size(rng), size(rng), size(rng)), hb(size(rng), size(rng), size(rng));
    const int ba = t.add_box("a", ha), bb = t.add_box("b", hb);
    const int pa_ = t.add_polyhedron("pa", box_corners(ha)),
              pb_ = t.add_polyhedron("pb", box_corners(hb));
    const Quat qb = Quat(u(rng), u(rng), u(rng), u(rng)).normalized();
    // Every other trial A is nearly aligned with B (within 0.05 rad): face-face contacts.
    const Quat qa = trial % 2 == 0 ? Quat(u(rng), u(rng), u(rng), u(rng)).normalized()
                                   : qb * axis_angle(0.05 * u(rng), Vec3(u(rng), u(rng), u(rng)));
    const Vec3 d = Vec3(u(rng), u(rng), u(rng)).normalized();
    const Pose pb(Vec3(u(rng), u(rng), u(rng)), qb);
    // Slide A towards B along d: find where they start to touch (bisection with the box code),
    // then overlap by `pen` times the smaller half extent (negative: apart).
    const Mat3 ra = qa.toRotationMatrix(), rb = qb.toRotationMatrix();
    double lo = 0.0;  // overlapping
    double hi = (ha.array() * (ra.transpose() * d).array().abs()).sum() +
                (hb.array() * (rb.transpose() * d).array().abs()).sum();  // apart along d
    for (int it = 0; it < 60; ++it) {
      const double mid = 0.5 * (lo + hi);
      (run(t, ba, Pose(pb.position + mid * d, qa), bb, pb, 0.0).count > 0 ? lo : hi) = mid;
    }
    const double overlap = pen(rng) * std::min(ha.minCoeff(), hb.minCoeff());
    const Pose pa(pb.position + (lo - overlap) * d, qa);
    const double margin = 0.05 * std::min(ha.minCoeff(), hb.minCoeff());
    const Manifold ref = run(t, ba, pa, bb, pb, margin);
    const Manifold poly = run(t, pa_, pa, pb_, pb, margin);
    ASSERT_EQ(ref.count, poly.count) << "trial " << trial;
    if (ref.count == 0) continue;
    ++compared;
    // Edge-edge when the normal is along no face normal of either box.
    double align = 0.0;
    for (int k = 0; k < 3; ++k)
      align = std::max(
          {align, std::abs(ref.normal.dot(ra.col(k))), std::abs(ref.normal.dot(rb.col(k)))});
    if (align < 1.0 - 1e-9) ++edge;
    if (ref.count > 1) ++face;
    expect_same(ref, poly, 1e-9);
    // Box against polyhedron and polyhedron against box: the same again.
    expect_same(ref, run(t, ba, pa, pb_, pb, margin), 1e-9);
    expect_mirrored(ref, run(t, pb_, pb, ba, pa, margin), 1e-9);
    if (HasFailure()) {
      ADD_FAILURE() << "trial " << trial;
      return;
    }
  }
  std::printf("compared %d contacts: %d edge-edge, %d face-face (more than one point)\n", compared,
              edge, face);
  EXPECT_GT(compared, 1500);
  EXPECT_GT(edge, 100);
  EXPECT_GT(face, 500);
}

/// Random pairs of hulls in overlap, for the tests of the separating axis choice: each hull the
/// hull of n points of a normal cloud with the given axis scales; B at the origin, A turned at
/// random and moved along a random direction to where the two touch (bisection on the
/// brute-force separation), then deeper by depth(w), w uniform in [0, 1).
struct OverlappingHulls {
  explicit OverlappingHulls(unsigned seed, Vec3 scale, int bisections)
      : rng(seed), scale(scale), bisections(bisections) {}
  struct Pair {
    ConvexPolyhedron a, b;
    Pose pa, pb;
  };
  template <class Depth>
  Pair next(int na, int nb, Depth depth) {
    auto cloud = [&](int n) {
      std::vector<Vec3> p;
      for (int k = 0; k < n; ++k)
        p.emplace_back(scale.x() * g(rng), scale.y() * g(rng), scale.z() * g(rng));
      return ConvexPolyhedron::from_points(p);
    };
    ConvexPolyhedron a = cloud(na), b = cloud(nb);
    const Pose pb(Vec3::Zero(), Quat(u(rng), u(rng), u(rng), u(rng)).normalized());
    const Vec3 d = Vec3(u(rng), u(rng), u(rng)).normalized();
    const Quat qa = Quat(u(rng), u(rng), u(rng), u(rng)).normalized();
    double lo = 0.0, hi = a.bounding_radius + b.bounding_radius;
    for (int it = 0; it < bisections; ++it) {
      const double mid = 0.5 * (lo + hi);
      (brute_force_separation(a, Pose(mid * d, qa), b, pb) < 0.0 ? lo : hi) = mid;
    }
    const Pose pa((lo - depth(0.5 + 0.5 * u(rng))) * d, qa);
    return {std::move(a), std::move(b), pa, pb};
  }
  std::mt19937_64 rng;
  std::normal_distribution<double> g{0.0, 1.0};
  std::uniform_real_distribution<double> u{-1.0, 1.0};
  Vec3 scale;
  int bisections;
};

TEST(PolyhedronPolyhedron, PrunedEdgeAxesFindTheBestAxisOfABruteForceSearch) {
  // Random hulls (8 to 20 points), overlapping. The contact normal must be as good an axis as
  // the best of every face normal and every edge-edge cross product, within the bias that
  // prefers faces (2 % / 5 % plus 1e-4 of the inner radius), and an edge-edge contact's gap is
  // the separation along its axis.
  OverlappingHulls hulls(99, Vec3(1.0, 0.7, 0.5), 40);
  int edges = 0, faces = 0;
  for (int trial = 0; trial < 200; ++trial) {
    // 0.02 - 0.3 deeper than touching.
    const auto [a, b, pa, pb] =
        hulls.next(8 + trial % 13, 8 + (trial * 7) % 13, [](double w) { return 0.02 + 0.28 * w; });
    Manifold m;
    collide_hull_hull(a, pa, b, pb, 0.0, m);
    const double best = brute_force_separation(a, pa, b, pb);
    ASSERT_LT(best, 0.0);  // overlapping
    ASSERT_GT(m.count, 0) << trial;
    const double s = projected_separation(a, pa, b, pb, m.normal);
    const double tol = 0.05 * std::abs(best) + 1e-4 * std::min(a.inner_radius, b.inner_radius);
    EXPECT_GE(s, best - tol - 1e-12) << trial;
    EXPECT_LE(s, best + 1e-12) << trial;
    if (m.count == 1 && std::abs(m.gap[0] - s) < 1e-9)
      ++edges;
    else
      ++faces;
    // Symmetry through the swap.
    Manifold r;
    collide_hull_hull(b, pb, a, pa, 0.0, r);
    EXPECT_NEAR(projected_separation(a, pa, b, pb, -r.normal), s, tol + 1e-12);
  }
  std::printf("%d edge-edge and %d face contacts\n", edges, faces);
  EXPECT_GT(edges, 50);
  EXPECT_GT(faces, 50);
}

/// The smallest gap of a manifold (+infinity when it is empty).
double deepest_gap(const Manifold& m) {
  double least = std::numeric_limits<double>::infinity();
  for (int k = 0; k < m.count; ++k) least = std::min(least, m.gap[k]);
  return least;
}

TEST(PolyhedronPolyhedron, ManifoldHoldsTheOverlapTheAxesMeasure) {
  // Random hulls brought into overlap along a random direction, as in the test above, with
  // margins from 0 to a tenth of the bounding radius. Whatever axis wins the choice, the
  // manifold must hold a point as deep as the best axis of a brute-force search says the
  // bodies overlap, within the bias that prefers faces: a face that wins by its bias while
  // the overlap lies beside it (at an edge pair, or a vertex beyond the face's side planes)
  // reported only points far apart (two rocks of a pile: +7 % of the thickness while 4.5 %
  // deep).
  OverlappingHulls hulls(7, Vec3(1.0, 0.8, 0.6), 24);
  int checked = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const auto [a, b, pa, pb] =
        hulls.next(8 + trial % 11, 8 + (trial * 5) % 11, [](double w) { return 0.1 * w; });
    const double best = brute_force_separation(a, pa, b, pb);
    ASSERT_LT(best, 0.0);
    const double margin =
        0.1 * (0.5 + 0.5 * hulls.u(hulls.rng)) * std::min(a.bounding_radius, b.bounding_radius);
    const double bias = 0.05 * std::abs(best) + 1e-4 * std::min(a.inner_radius, b.inner_radius);
    for (const bool swap : {false, true}) {
      Manifold m;
      if (swap)
        collide_hull_hull(b, pb, a, pa, margin, m);
      else
        collide_hull_hull(a, pa, b, pb, margin, m);
      ++checked;
      EXPECT_LE(deepest_gap(m), best + bias + 1e-12) << "trial " << trial << " swap " << swap;
      EXPECT_GE(deepest_gap(m), best - bias - 1e-12) << "trial " << trial << " swap " << swap;
    }
    if (HasFailure()) return;
  }
  EXPECT_EQ(checked, 8000);
}

TEST(PolyhedronPolyhedron, TwoRocksOfAPileAreSeenOverlappingBeforeTheEdgeAxisWins) {
  // Two rocks of examples/repose/rocks.toml (rock3, bodies 1990 and 1997 of the one-thread run,
  // t = 0.6083 s and 0.6100 s, the poses to the last bit). Over this step the best edge pair
  // separates the two 0.32-0.37 mm deep (about 4.5 % of the thickness), a face of A only 5 %
  // less well: the face won the choice, its clipped incident face lay 0.56 mm apart and the
  // incident rock's deepest vertex 1.7 mm beyond the face's side, so the manifold said "apart"
  // until the edge axis won, 0.3 of the way through the step, and the overlap appeared whole.
  // At every pose between the two ends the manifold must hold the overlap, and its deepest gap
  // must change by no more than the motion (a few micrometres between the samples).
  ShapeTable t;
  const int rock = t.add_polyhedron(
      "rock3",
      std::vector<Vec3>{{0.00172, 0.00519, -0.00119}, {0.00305, 0.00504, 0.00001},
                        {0.00240, 0.00142, 0.00380},  {0.00348, -0.00366, -0.00239},
                        {-0.00009, 0.00526, -0.00144}, {0.00085, 0.00324, -0.00339},
                        {-0.00646, 0.00112, 0.00137}, {0.00204, -0.00295, 0.00336},
                        {0.00079, -0.00117, 0.00408}, {0.00373, -0.00466, -0.00063},
                        {-0.00058, -0.00013, -0.00418}, {-0.00211, 0.00349, -0.00303},
                        {-0.00036, 0.00416, 0.00280}, {0.00456, -0.00416, -0.00065},
                        {-0.00183, 0.00268, 0.00352}, {-0.00580, 0.00188, -0.00188},
                        {0.00290, -0.00506, 0.00045}, {0.00686, -0.00069, 0.00066}});
  const ConvexPolyhedron& hull = t.polyhedron(rock);
  // Position and quaternion (w, x, y, z) of A and B at the start and at the end of the step.
  constexpr double kPose[2][2][7] = {
      {{0.019622958365042093, 0.036363040488007627, 0.066410074191906157, -0.76027599858972739,
        -0.31367015950135169, 0.18788922190081592, -0.5369255789216002},
       {0.025781661642000422, 0.03852173932524855, 0.063128659329306211, 0.21416632420913922,
        0.27117172676539281, 0.92982455248908069, 0.12658981699292399}},
      {{0.019636968126956096, 0.036392492414393636, 0.066396514642255614, -0.76229323988618891,
        -0.31230986540838479, 0.18352551793295047, -0.53636736352975123},
       {0.025779326241422481, 0.038521423184110427, 0.06312744708172828, 0.21432611889009973,
        0.27127702284850491, 0.92978659254132601, 0.12637240191730537}}};
  auto pose = [&](int end, int body) {
    const double* x = kPose[end][body];
    return Pose(Vec3(x[0], x[1], x[2]), Quat(x[3], x[4], x[5], x[6]));
  };
  const Pose a0 = pose(0, 0), b0 = pose(0, 1), a1 = pose(1, 0), b1 = pose(1, 1);
  const double margin = 1e-3;
  double previous = 0.0;
  for (int k = 0; k <= 10; ++k) {
    const double s = 0.1 * k;
    const Pose pa(a0.position + s * (a1.position - a0.position),
                  a0.orientation.slerp(s, a1.orientation));
    const Pose pb(b0.position + s * (b1.position - b0.position),
                  b0.orientation.slerp(s, b1.orientation));
    const double best = brute_force_separation(hull, pa, hull, pb);
    EXPECT_LT(best, -0.3e-3) << s;
    EXPECT_GT(best, -0.4e-3) << s;
    const Manifold m = run(t, rock, pa, rock, pb, margin);
    const double deepest = deepest_gap(m);
    EXPECT_NEAR(deepest, best, 0.05 * std::abs(best)) << s;
    if (k > 0) {
      EXPECT_NEAR(deepest, previous, 2e-5) << s;
    }
    previous = deepest;
  }
}

TEST(PolyhedronPolyhedron, ManifoldFollowsARigidMotionOfTheScene) {
  Scene s;
  const Quat qa = axis_angle(0.3, Vec3(1.0, -0.5, 0.2));
  const Vec3 xa(0.15, -0.1, 1.05);
  const Pose pb0(Vec3::Zero(), axis_angle(-0.2, Vec3(0.3, 1.0, 0.1)));
  const Manifold ref = run(s.t, s.tet, Pose(xa, qa), s.pcube, pb0, 0.05);
  ASSERT_GT(ref.count, 0);
  const Quat g = axis_angle(1.1, Vec3(-2.0, 1.0, 0.5));
  const Vec3 t(3.0, -1.0, 2.0);
  const Manifold m =
      run(s.t, s.tet, Pose(g * xa + t, g * qa), s.pcube, Pose(t, g * pb0.orientation), 0.05);
  ASSERT_EQ(m.count, ref.count);
  expect_vec_near(m.normal, g * ref.normal, 1e-12);
  for (int k = 0; k < ref.count; ++k)
    EXPECT_TRUE(has_point(m, g * ref.point[k] + t, ref.gap[k], 1e-12)) << k;
}

}  // namespace
}  // namespace etdem
