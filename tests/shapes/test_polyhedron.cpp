// Convex polyhedra: hull construction (Qhull, merged coplanar facets, topology), queries, input
// errors, and the exact mass properties against closed forms and an independent Monte Carlo
// estimate.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <stdexcept>

#include "etdem/core/polyhedron_mass.hpp"
#include "etdem/shapes/polyhedron.hpp"
#include "etdem/shapes/shape.hpp"
#include "manifold_checks.hpp"

namespace etdem {
namespace {

using test::axis_angle;

std::vector<Vec3> box_corners(const Vec3& h, const Vec3& centre = Vec3::Zero(),
                              const Quat& q = Quat::Identity()) {
  std::vector<Vec3> p;
  for (int k = 0; k < 8; ++k)
    p.push_back(centre + q * Vec3((k & 1) ? h.x() : -h.x(), (k & 2) ? h.y() : -h.y(),
                                  (k & 4) ? h.z() : -h.z()));
  return p;
}

/// Regular tetrahedron of edge a, centred at the origin.
std::vector<Vec3> regular_tetrahedron(double a) {
  const double s = a / (2.0 * std::sqrt(2.0));
  return {Vec3(s, s, s), Vec3(s, -s, -s), Vec3(-s, s, -s), Vec3(-s, -s, s)};
}

/// Structural invariants every hull must satisfy.
void expect_valid_hull(const ConvexPolyhedron& p, double tol) {
  EXPECT_EQ(p.vertex_count() - p.edge_count() + p.face_count(), 2);  // Euler, genus 0
  for (int f = 0; f < p.face_count(); ++f) {
    const auto& face = p.faces[f];
    EXPECT_NEAR(face.normal.norm(), 1.0, 1e-14);
    EXPECT_GT(face.offset, 0.0);  // the centre of mass is inside
    EXPECT_GE(face.count, 3);
    const auto fv = p.face(f);
    for (std::size_t k = 0; k < fv.size(); ++k) {
      const Vec3& a = p.vertices[fv[k]];
      const Vec3& b = p.vertices[fv[(k + 1) % fv.size()]];
      const Vec3& c = p.vertices[fv[(k + 2) % fv.size()]];
      EXPECT_NEAR(face.normal.dot(a), face.offset, tol) << "face " << f << " not planar";
      // Counter-clockwise about the outward normal, convex: every turn is to the left.
      EXPECT_GT((b - a).cross(c - b).dot(face.normal), 0.0) << "face " << f << " corner " << k;
    }
    for (const Vec3& v : p.vertices) EXPECT_LE(face.normal.dot(v), face.offset + tol);
  }
  for (const auto& e : p.edges) {
    EXPECT_NE(e.f0, e.f1);
    EXPECT_LT(p.faces[e.f0].normal.dot(p.faces[e.f1].normal), 1.0 - 1e-9)  // merged if coplanar
        << "coplanar faces " << e.f0 << " and " << e.f1 << " were not merged";
  }
}

TEST(Polyhedron, CubeHasSixQuadFacesTwelveEdgesAndExactMass) {
  const Vec3 centre(1.0, -2.0, 0.5);
  const auto p = ConvexPolyhedron::from_points(box_corners(Vec3(0.5, 0.5, 0.5), centre));
  ASSERT_EQ(p.vertex_count(), 8);
  ASSERT_EQ(p.face_count(), 6);
  EXPECT_EQ(p.edge_count(), 12);
  for (const auto& f : p.faces) EXPECT_EQ(f.count, 4);
  expect_valid_hull(p, 1e-14);
  EXPECT_NEAR(p.volume, 1.0, 1e-14);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(p.unit_inertia[k], 1.0 / 6.0, 1e-14);
  EXPECT_NEAR((p.input_centre - centre).norm(), 0.0, 1e-14);
  EXPECT_NEAR(p.input_rotation.angularDistance(Quat::Identity()), 0.0, 1e-15);
  EXPECT_NEAR(p.bounding_radius, std::sqrt(0.75), 1e-14);
  EXPECT_NEAR(p.inner_radius, 0.5, 1e-14);
  EXPECT_NEAR(p.min_width, 1.0, 1e-14);
  // Each vertex of a cube has 3 neighbours, all at distance 1.
  for (int v = 0; v < 8; ++v) {
    EXPECT_EQ(p.neighbour_start[v + 1] - p.neighbour_start[v], 3);
    for (int k = p.neighbour_start[v]; k < p.neighbour_start[v + 1]; ++k)
      EXPECT_NEAR((p.vertices[v] - p.vertices[p.neighbours[k]]).norm(), 1.0, 1e-14);
  }
}

TEST(Polyhedron, InteriorFaceEdgeAndDuplicatePointsAreDropped) {
  auto pts = box_corners(Vec3(1.0, 0.5, 0.25));
  pts.push_back(Vec3(0.1, 0.2, 0.0));   // interior
  pts.push_back(Vec3(1.0, 0.1, -0.1));  // on the +x face
  pts.push_back(Vec3(0.0, 0.5, 0.25));  // mid-edge
  pts.push_back(pts[3]);                // duplicate corner
  const auto p = ConvexPolyhedron::from_points(pts);
  EXPECT_EQ(p.vertex_count(), 8);
  EXPECT_EQ(p.face_count(), 6);
  EXPECT_EQ(p.edge_count(), 12);
  expect_valid_hull(p, 1e-14);
  EXPECT_NEAR(p.volume, 8.0 * 0.5 * 0.25, 1e-14);
}

TEST(Polyhedron, RotatedCubeMergesFacesAndKeepsItsOrientation) {
  // Not axis aligned: Qhull's facets come from round-off-laden coordinates and must still merge.
  const Quat q = axis_angle(0.7, Vec3(1.0, 2.0, 3.0));
  const Vec3 centre(0.3, 0.2, -0.1);
  const auto pts = box_corners(Vec3(0.5, 0.5, 0.5), centre, q);
  const auto p = ConvexPolyhedron::from_points(pts);
  ASSERT_EQ(p.face_count(), 6);
  EXPECT_EQ(p.edge_count(), 12);
  expect_valid_hull(p, 1e-14);
  // A cube's inertia is isotropic: the principal frame is the input frame.
  EXPECT_NEAR(p.input_rotation.angularDistance(Quat::Identity()), 0.0, 1e-15);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(p.unit_inertia[k], 1.0 / 6.0, 1e-14);
  // Every body-frame vertex maps back onto an input point.
  for (const Vec3& v : p.vertices) {
    const Vec3 x = p.input_centre + p.input_rotation * v;
    double best = 1e9;
    for (const Vec3& y : pts) best = std::min(best, (x - y).norm());
    EXPECT_LT(best, 1e-14);
  }
}

TEST(Polyhedron, RotatedBrickIsTurnedToItsPrincipalAxes) {
  const Vec3 h(1.0, 0.5, 0.25);
  const Quat q = axis_angle(0.4, Vec3(-1.0, 2.0, 0.5));
  const Vec3 centre(5.0, -3.0, 2.0);
  const auto p = ConvexPolyhedron::from_points(box_corners(h, centre, q));
  ASSERT_EQ(p.face_count(), 6);
  expect_valid_hull(p, 1e-13);
  // Body frame = the brick's own axes (the rotation nearest the identity among the equivalent
  // principal frames is the brick's rotation itself here), moments in the brick's order.
  EXPECT_LT(p.input_rotation.angularDistance(q), 1e-13);
  const MassProperties exact = box_mass_properties(h, 1.0);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(p.unit_inertia[k], exact.inertia[k], 1e-13);
  EXPECT_NEAR((p.input_centre - centre).norm(), 0.0, 1e-13);
  for (const Vec3& v : p.vertices)
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(std::abs(v[k]), h[k], 1e-13);
}

TEST(Polyhedron, BoxFactoryMatchesTheHullOfItsCorners) {
  const Vec3 h(0.3, 0.2, 0.1);
  const auto a = ConvexPolyhedron::box(h);
  const auto b = ConvexPolyhedron::from_points(box_corners(h));
  expect_valid_hull(a, 0.0);
  EXPECT_EQ(a.face_count(), b.face_count());
  EXPECT_EQ(a.edge_count(), b.edge_count());
  EXPECT_NEAR(a.volume, b.volume, 1e-15);
  EXPECT_NEAR((a.unit_inertia - b.unit_inertia).norm(), 0.0, 1e-16);
  EXPECT_EQ(a.bounding_radius, h.norm());
  EXPECT_EQ(a.inner_radius, 0.1);
  for (int f = 0; f < 6; ++f) {
    const int g = b.supporting_face(a.faces[f].normal);
    EXPECT_NEAR((a.faces[f].normal - b.faces[g].normal).norm(), 0.0, 1e-15);
    EXPECT_NEAR(a.faces[f].offset, b.faces[g].offset, 1e-15);
  }
}

TEST(Polyhedron, RegularTetrahedronMatchesClosedForm) {
  const double a = 0.7;
  const auto p = ConvexPolyhedron::from_points(regular_tetrahedron(a));
  EXPECT_EQ(p.vertex_count(), 4);
  EXPECT_EQ(p.face_count(), 4);
  EXPECT_EQ(p.edge_count(), 6);
  expect_valid_hull(p, 1e-15);
  const double volume = a * a * a / (6.0 * std::sqrt(2.0));
  EXPECT_NEAR(p.volume, volume, 1e-15);
  // I = m a^2 / 20 about any axis through the centroid.
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(p.unit_inertia[k], volume * a * a / 20.0, 1e-16);
  // Inradius a / sqrt(24), circumradius a sqrt(3/8).
  EXPECT_NEAR(p.inner_radius, a / std::sqrt(24.0), 1e-15);
  EXPECT_NEAR(p.bounding_radius, a * std::sqrt(3.0 / 8.0), 1e-15);
}

TEST(Polyhedron, RandomCloudsGiveValidHulls) {
  std::mt19937_64 rng(42);
  std::normal_distribution<double> g(0.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<Vec3> pts;
    const int n = 4 + trial * 5;
    for (int k = 0; k < n; ++k) pts.push_back(Vec3(g(rng), 0.5 * g(rng), 2.0 * g(rng)));
    const auto p = ConvexPolyhedron::from_points(pts);
    expect_valid_hull(p, 1e-12);
    // Principal frame: the inertia tensor of the body-frame vertices is diagonal.
    std::vector<std::array<int, 3>> tris;
    for (int f = 0; f < p.face_count(); ++f) {
      const auto fv = p.face(f);
      for (std::size_t k = 1; k + 1 < fv.size(); ++k) tris.push_back({fv[0], fv[k], fv[k + 1]});
    }
    const SolidIntegrals si = solid_integrals(p.vertices, tris);
    EXPECT_NEAR(si.volume, p.volume, 1e-12 * p.volume);
    EXPECT_LT(si.centroid.norm(), 1e-12 * p.bounding_radius);
    const double scale = si.inertia.trace();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        EXPECT_NEAR(si.inertia(i, j), i == j ? p.unit_inertia[i] : 0.0, 1e-12 * scale);
  }
}

TEST(Polyhedron, SupportAndSupportingFace) {
  // 400 points on a sphere: the hill-climbing support agrees with a scan.
  std::mt19937_64 rng(7);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<Vec3> pts;
  for (int k = 0; k < 400; ++k) pts.push_back(Vec3(g(rng), g(rng), g(rng)).normalized());
  const auto p = ConvexPolyhedron::from_points(pts);
  ASSERT_GT(p.vertex_count(), 32);  // the hill-climbing branch
  for (int trial = 0; trial < 200; ++trial) {
    const Vec3 d(g(rng), g(rng), g(rng));
    double best = -1e9;
    for (const Vec3& v : p.vertices) best = std::max(best, d.dot(v));
    EXPECT_EQ(d.dot(p.support(d)), best);
    const int f = p.supporting_face(d);
    for (const auto& face : p.faces) EXPECT_LE(face.normal.dot(d), p.faces[f].normal.dot(d));
  }
  const auto cube = ConvexPolyhedron::box(Vec3(1, 2, 3));
  EXPECT_EQ(cube.support(Vec3(1, -1, 1)), Vec3(1, -2, 3));
  EXPECT_EQ(cube.faces[cube.supporting_face(Vec3(0.1, -1, 0.2))].normal, -Vec3::UnitY());
}

void expect_rejected(const std::vector<Vec3>& pts, const std::string& words) {
  try {
    (void)ConvexPolyhedron::from_points(pts);
    ADD_FAILURE() << "accepted; expected: " << words;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(Polyhedron, BadInputIsRejectedWithAReason) {
  expect_rejected({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)}, "at least 4 vertices, got 3");
  expect_rejected({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, NAN)},
                  "vertex 3 has a non-finite coordinate");
  expect_rejected({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(1, 1, 0), Vec3(2, 3, 0)},
                  "all vertices lie in one plane");
  expect_rejected({Vec3(0, 0, 0), Vec3(1, 1, 1), Vec3(2, 2, 2), Vec3(-1, -1, -1)},
                  "all vertices lie on one line");
  expect_rejected({Vec3(1, 1, 1), Vec3(1, 1, 1), Vec3(1, 1, 1), Vec3(1, 1, 1)},
                  "all vertices coincide");
  // Tilted plane with round-off in the coordinates: still flat.
  const Quat q = axis_angle(0.3, Vec3(1, 1, 0));
  expect_rejected({q * Vec3(0, 0, 0), q * Vec3(1, 0, 0), q * Vec3(0, 1, 0), q * Vec3(0.4, 0.3, 0)},
                  "all vertices lie in one plane");
  ShapeTable shapes;
  EXPECT_THROW(shapes.add_polyhedron("p", std::vector<Vec3>{Vec3::Zero()}), std::invalid_argument);
  EXPECT_EQ(shapes.size(), 0);
}

// ---------------------------------------------------------------------------------------------
// Mass properties.

std::vector<std::array<int, 3>> fan(const ConvexPolyhedron& p) {
  std::vector<std::array<int, 3>> tris;
  for (int f = 0; f < p.face_count(); ++f) {
    const auto fv = p.face(f);
    for (std::size_t k = 1; k + 1 < fv.size(); ++k) tris.push_back({fv[0], fv[k], fv[k + 1]});
  }
  return tris;
}

TEST(PolyhedronMass, OffsetBoxMatchesClosedForm) {
  const Vec3 h(1.5, 0.4, 0.7), c(10.0, -20.0, 30.0);
  const auto box = ConvexPolyhedron::box(h);
  std::vector<Vec3> v;
  for (const Vec3& x : box.vertices) v.push_back(x + c);
  const SolidIntegrals si = solid_integrals(v, fan(box));
  EXPECT_NEAR(si.volume, 8.0 * h.prod(), 1e-13);
  EXPECT_NEAR((si.centroid - c).norm(), 0.0, 1e-13);
  const Vec3 exact = box_mass_properties(h, 1.0).inertia;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(si.inertia(i, j), i == j ? exact[i] : 0.0, 1e-13);
  // Faces turned inwards: negative volume.
  std::vector<std::array<int, 3>> inward;
  for (auto t : fan(box)) inward.push_back({t[0], t[2], t[1]});
  EXPECT_NEAR(solid_integrals(v, inward).volume, -8.0 * h.prod(), 1e-13);
}

TEST(PolyhedronMass, RotatedAndShearedUnitCubeFollowsTheLinearMap) {
  // Under x -> S x with det S = 1 the volume stays 1 and the second moment about the centroid
  // becomes S C S^T with C = 1/12 for the unit cube; I = tr(C) 1 - C. A rotation keeps the
  // invariants: principal moments 1/6.
  const auto cube = ConvexPolyhedron::box(Vec3(0.5, 0.5, 0.5));
  const auto tris = fan(cube);
  Mat3 shear = Mat3::Identity();
  shear(0, 1) = 0.7;
  shear(1, 2) = -0.3;
  shear(0, 2) = 0.2;
  const Mat3 rot = axis_angle(1.1, Vec3(0.3, -1.0, 2.0)).toRotationMatrix();
  for (const Mat3& s : {rot, shear, Mat3(rot * shear)}) {
    std::vector<Vec3> v;
    for (const Vec3& x : cube.vertices) v.push_back(s * x + Vec3(0.5, 0.5, 0.5));
    const SolidIntegrals si = solid_integrals(v, tris);
    EXPECT_NEAR(si.volume, 1.0, 1e-14);
    EXPECT_NEAR((si.centroid - s * Vec3::Zero() - Vec3(0.5, 0.5, 0.5)).norm(), 0.0, 1e-14);
    const Mat3 c = s * (Mat3::Identity() / 12.0) * s.transpose();
    const Mat3 exact = c.trace() * Mat3::Identity() - c;
    EXPECT_NEAR((si.inertia - exact).norm(), 0.0, 1e-14);
    // Invariants of the tensor: trace and determinant.
    EXPECT_NEAR(si.inertia.trace(), exact.trace(), 1e-14);
    EXPECT_NEAR(si.inertia.determinant(), exact.determinant(), 1e-14);
    const PrincipalFrame pf = principal_frame(si.inertia);
    EXPECT_NEAR(
        (pf.rotation * pf.moments.asDiagonal() * pf.rotation.transpose() - si.inertia).norm(), 0.0,
        1e-14);
    EXPECT_NEAR(pf.rotation.determinant(), 1.0, 1e-14);
  }
}

/// Icosahedron subdivided `level` times, vertices on the unit sphere.
ConvexPolyhedron icosphere(int level) {
  const double t = (1.0 + std::sqrt(5.0)) / 2.0;
  std::vector<Vec3> v = {Vec3(-1, t, 0), Vec3(1, t, 0), Vec3(-1, -t, 0), Vec3(1, -t, 0),
                         Vec3(0, -1, t), Vec3(0, 1, t), Vec3(0, -1, -t), Vec3(0, 1, -t),
                         Vec3(t, 0, -1), Vec3(t, 0, 1), Vec3(-t, 0, -1), Vec3(-t, 0, 1)};
  std::vector<std::array<int, 3>> f = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                       {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                       {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                       {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
  for (Vec3& x : v) x.normalize();
  for (int l = 0; l < level; ++l) {
    std::map<std::pair<int, int>, int> mid;
    auto middle = [&](int a, int b) {
      const auto key = std::minmax(a, b);
      auto it = mid.find(key);
      if (it != mid.end()) return it->second;
      v.push_back((v[a] + v[b]).normalized());
      return mid[key] = static_cast<int>(v.size()) - 1;
    };
    std::vector<std::array<int, 3>> g;
    for (const auto& tri : f) {
      const int a = middle(tri[0], tri[1]), b = middle(tri[1], tri[2]), c = middle(tri[2], tri[0]);
      g.push_back({tri[0], a, c});
      g.push_back({tri[1], b, a});
      g.push_back({tri[2], c, b});
      g.push_back({a, b, c});
    }
    f = g;
  }
  return ConvexPolyhedron::from_points(v);
}

TEST(PolyhedronMass, IcosphereConvergesToTheSolidSphere) {
  // I / (m r^2) -> 2/5 and V -> 4/3 pi as the inscribed polyhedron refines; the errors fall by
  // about 4 per level (second order in the edge length; measured 3.1 from level 0 to 1, then
  // 3.7 - 4.0).
  double previous_i = 1.0, previous_v = 1.0;
  for (int level = 0; level <= 4; ++level) {
    const auto p = icosphere(level);
    expect_valid_hull(p, 1e-13);
    const double ratio = p.unit_inertia.x() / p.volume;  // I / (m r^2), r = 1, density 1
    const double err_i = std::abs(ratio - 0.4);
    const double err_v = std::abs(p.volume - 4.0 / 3.0 * M_PI) / (4.0 / 3.0 * M_PI);
    std::printf("level %d: %4d vertices, V error %.3e, I/(m r^2) = %.8f\n", level, p.vertex_count(),
                err_v, ratio);
    // The icosahedron's symmetry makes the tensor isotropic at every level.
    EXPECT_NEAR(p.unit_inertia.y(), p.unit_inertia.x(), 1e-12 * p.unit_inertia.x());
    EXPECT_NEAR(p.unit_inertia.z(), p.unit_inertia.x(), 1e-12 * p.unit_inertia.x());
    if (level > 0) {
      EXPECT_LT(err_i, previous_i / (level == 1 ? 3.0 : 3.5)) << "level " << level;
      EXPECT_LT(err_v, previous_v / (level == 1 ? 3.0 : 3.5)) << "level " << level;
    }
    previous_i = err_i;
    previous_v = err_v;
  }
  EXPECT_LT(previous_i, 6e-4);    // measured 5.8e-4 at level 4 (2562 vertices)
  EXPECT_LT(previous_v, 2.5e-3);  // measured 2.2e-3
}

TEST(PolyhedronMass, NonSymmetricTetrahedronAgreesWithMonteCarlo) {
  // An independent estimate: uniform points in the bounding box, kept when inside every face
  // plane. Tolerance: 5 standard errors of each estimated quantity.
  const std::vector<Vec3> pts = {Vec3(0.1, 0.0, 0.0), Vec3(1.3, 0.2, -0.1), Vec3(0.4, 0.9, 0.3),
                                 Vec3(0.2, 0.3, 1.1)};
  const auto p = ConvexPolyhedron::from_points(pts);
  const auto tris = fan(p);
  const SolidIntegrals exact = [&] {
    std::vector<Vec3> v;  // back to the input frame
    for (const Vec3& x : p.vertices) v.push_back(p.input_centre + p.input_rotation * x);
    return solid_integrals(v, tris);
  }();
  // Closed-form volume of a tetrahedron: |det| / 6.
  const double det = (pts[1] - pts[0]).dot((pts[2] - pts[0]).cross(pts[3] - pts[0]));
  EXPECT_NEAR(exact.volume, std::abs(det) / 6.0, 1e-15);
  EXPECT_NEAR(p.volume, std::abs(det) / 6.0, 1e-15);
  EXPECT_NEAR((exact.centroid - (pts[0] + pts[1] + pts[2] + pts[3]) / 4.0).norm(), 0.0, 1e-15);

  Vec3 lo = pts[0], hi = pts[0];
  for (const Vec3& x : pts) lo = lo.cwiseMin(x), hi = hi.cwiseMax(x);
  const double box_volume = (hi - lo).prod();
  std::mt19937_64 rng(2024);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const long n = 2'000'000;
  long inside = 0;
  Eigen::Matrix<double, 9, 1> sum = Eigen::Matrix<double, 9, 1>::Zero(), sum2 = sum;
  for (long k = 0; k < n; ++k) {
    const Vec3 x = lo + Vec3(u(rng), u(rng), u(rng)).cwiseProduct(hi - lo);
    const Vec3 xb = p.input_rotation.conjugate() * (x - p.input_centre);
    bool in = true;
    for (const auto& f : p.faces) in = in && f.normal.dot(xb) <= f.offset;
    if (!in) continue;
    ++inside;
    // Integrands about the exact centroid: x, y, z, then the inertia components.
    const Vec3 d = x - exact.centroid;
    Eigen::Matrix<double, 9, 1> s;
    s << x.x(), x.y(), x.z(), d.y() * d.y() + d.z() * d.z(), d.x() * d.x() + d.z() * d.z(),
        d.x() * d.x() + d.y() * d.y(), -d.x() * d.y(), -d.x() * d.z(), -d.y() * d.z();
    sum += s;
    sum2 += s.cwiseProduct(s);
  }
  // Volume: binomial standard error.
  const double frac = static_cast<double>(inside) / n;
  const double vol = frac * box_volume;
  const double vol_se = box_volume * std::sqrt(frac * (1.0 - frac) / n);
  EXPECT_NEAR(vol, exact.volume, 5.0 * vol_se);
  // Integrals int f dV estimated as box_volume * mean(f * indicator).
  const double nd = static_cast<double>(n);
  auto check = [&](int k, double value, const char* what) {
    const double mean = sum[k] / nd, var = sum2[k] / nd - mean * mean;
    const double est = box_volume * mean, se = box_volume * std::sqrt(var / nd);
    EXPECT_NEAR(est, value, 5.0 * se) << what;
    std::printf("%-6s exact %.6e  Monte Carlo %.6e +- %.1e\n", what, value, est, se);
  };
  check(0, exact.volume * exact.centroid.x(), "V x_c");
  check(1, exact.volume * exact.centroid.y(), "V y_c");
  check(2, exact.volume * exact.centroid.z(), "V z_c");
  check(3, exact.inertia(0, 0), "I_xx");
  check(4, exact.inertia(1, 1), "I_yy");
  check(5, exact.inertia(2, 2), "I_zz");
  check(6, exact.inertia(0, 1), "I_xy");
  check(7, exact.inertia(0, 2), "I_xz");
  check(8, exact.inertia(1, 2), "I_yz");
}

TEST(PolyhedronMass, ShapeTableMassPropertiesScaleWithDensity) {
  ShapeTable shapes;
  const int s = shapes.add_polyhedron("tet", regular_tetrahedron(0.1));
  EXPECT_EQ(shapes.type[s], ShapeType::Polyhedron);
  EXPECT_STREQ(shape_type_name(shapes.type[s]), "polyhedron");
  const MassProperties mp = shapes.mass_properties(s, 2650.0);
  const double volume = 1e-3 / (6.0 * std::sqrt(2.0));
  EXPECT_NEAR(mp.volume, volume, 1e-18);
  EXPECT_NEAR(mp.mass, 2650.0 * volume, 1e-15);
  EXPECT_NEAR(mp.inertia.x(), mp.mass * 0.01 / 20.0, 1e-18);
  EXPECT_EQ(shapes.bounding_radius[s], shapes.polyhedron(s).bounding_radius);
  EXPECT_NEAR(shapes.min_thickness(s), 0.1 * std::sqrt(2.0 / 3.0), 1e-15);  // face to vertex
}

}  // namespace
}  // namespace etdem
