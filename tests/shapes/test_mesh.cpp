// Triangle meshes: import (STL ASCII and binary, OBJ), the checks of TriangleMesh::build, and the
// exact mass properties of closed meshes.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <stdexcept>

#include "etdem/io/mesh_import.hpp"
#include "etdem/shapes/shape.hpp"
#include "etdem/shapes/triangle_mesh.hpp"
#include "test_mesh_helpers.hpp"

namespace etdem {
namespace {

using test::SimpleMesh;

TriangleMesh build(const SimpleMesh& m,
                   TriangleMesh::Facing facing = TriangleMesh::Facing::Outward) {
  return TriangleMesh::build(m.v, m.t, facing);
}

SimpleMesh tetrahedron() {
  // Right-angled corner tetrahedron (0,0,0), (a,0,0), (0,b,0), (0,0,c), outward.
  return {{Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 2, 0), Vec3(0, 0, 3)},
          {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}}};
}

TEST(MeshImport, AsciiAndBinaryStlOfACubeGiveTheSameClosedMesh) {
  const SimpleMesh cube = test::box_mesh(Vec3(-1, -2, -3), Vec3(1, 2, 3));
  const std::string ascii = test::temp_path("cube_ascii.stl");
  const std::string binary = test::temp_path("cube_binary.stl");
  test::write_ascii_stl(ascii, cube);
  test::write_binary_stl(binary, cube);
  for (const std::string& path : {ascii, binary}) {
    const MeshData d = import_mesh(path);
    EXPECT_EQ(d.triangles.size(), 12u) << path;
    EXPECT_EQ(d.vertices.size(), 8u) << path << ": identical vertices are joined";
    const TriangleMesh m = TriangleMesh::build(d.vertices, d.triangles);
    EXPECT_TRUE(m.closed) << path;
    EXPECT_TRUE(m.notes.empty()) << path;
    EXPECT_NEAR(m.volume, 2.0 * 4.0 * 6.0, 1e-12) << path;
  }
}

TEST(MeshImport, ObjTetrahedronWithScaleAndOffset) {
  const std::string path = test::temp_path("tet.obj");
  test::write_obj(path, tetrahedron());
  MeshImportOptions o;
  o.scale = 2.0;
  o.offset = Vec3(10, 0, -1);
  const MeshData d = import_mesh(path, o);
  ASSERT_EQ(d.vertices.size(), 4u);
  ASSERT_EQ(d.triangles.size(), 4u);
  Vec3 lo = d.vertices[0], hi = d.vertices[0];
  for (const Vec3& v : d.vertices) lo = lo.cwiseMin(v), hi = hi.cwiseMax(v);
  EXPECT_TRUE(lo.isApprox(Vec3(10, 0, -1)));
  EXPECT_TRUE(hi.isApprox(Vec3(12, 4, 5)));
  const TriangleMesh m = TriangleMesh::build(d.vertices, d.triangles);
  EXPECT_NEAR(m.volume, 8.0 * 1.0 * 2.0 * 3.0 / 6.0, 1e-12);  // abc/6 times scale^3
}

TEST(MeshImport, ErrorsNameTheFileAndTheReason) {
  auto message = [](const std::string& path) {
    try {
      import_mesh(path);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string missing = test::temp_path("no_such_file.stl");
  EXPECT_NE(message(missing).find(missing + ": no such file"), std::string::npos);
  const std::string junk = test::temp_path("junk.stl");
  std::ofstream(junk) << "this is not a mesh\n";
  EXPECT_NE(message(junk).find(junk + ":"), std::string::npos) << message(junk);
  const std::string points = test::temp_path("points.obj");
  std::ofstream(points) << "v 0 0 0\nv 1 0 0\nv 0 1 0\nl 1 2\n";
  EXPECT_NE(message(points).find(points + ":"), std::string::npos) << message(points);
  // A NaN coordinate in a binary STL is an error naming the triangle.
  const std::string nan = test::temp_path("nan.stl");
  test::SimpleMesh bad_tri{{Vec3(0, 0, 0), Vec3(1, 0, std::nan("")), Vec3(0, 1, 0)}, {{0, 1, 2}}};
  test::write_binary_stl(nan, bad_tri);
  EXPECT_NE(message(nan).find(nan + ": triangle 0 has a non-finite vertex coordinate"),
            std::string::npos)
      << message(nan);
  EXPECT_THROW(TriangleMesh::build(bad_tri.v, bad_tri.t), std::invalid_argument);
  MeshImportOptions bad;
  bad.scale = 0.0;
  const std::string cube = test::temp_path("cube_for_scale.obj");
  test::write_obj(cube, test::box_mesh(Vec3(0, 0, 0), Vec3(1, 1, 1)));
  EXPECT_THROW(import_mesh(cube, bad), std::runtime_error);
}

TEST(TriangleMeshBuild, OpenFloorIsAllowedAndOneSided) {
  const TriangleMesh m = build(test::floor_mesh(-1, 1, 3));
  EXPECT_FALSE(m.closed);
  EXPECT_EQ(m.triangle_count(), 18);
  for (const Vec3& n : m.normals) EXPECT_NEAR(n.z(), 1.0, 1e-15);
  for (std::uint8_t c : m.convex_edge) EXPECT_EQ(c, 0) << "a flat floor has no ridge";
  EXPECT_THROW(m.solid(), std::logic_error);
  // Every triangle found by a query over the whole box.
  int found = 0;
  m.query(Vec3::Constant(-2), Vec3::Constant(2), [&](int) { ++found; });
  EXPECT_EQ(found, 18);
  found = 0;
  m.query(Vec3(0.9, 0.9, -0.1), Vec3(1.5, 1.5, 0.1), [&](int) { ++found; });
  EXPECT_GE(found, 2);  // the corner square's two triangles
  EXPECT_LE(found, 8);
}

TEST(TriangleMeshBuild, InvertedClosedMeshIsTurnedOutwardWithANote) {
  SimpleMesh cube = test::box_mesh(Vec3(0, 0, 0), Vec3(1, 1, 1));
  for (auto& t : cube.t) std::swap(t[1], t[2]);
  const TriangleMesh m = build(cube);
  EXPECT_NEAR(m.volume, 1.0, 1e-14);
  ASSERT_EQ(m.notes.size(), 1u);
  EXPECT_NE(m.notes[0].find("turned outwards"), std::string::npos);
  // Outward: the normal of the triangle holding the bottom face points down.
  for (int t = 0; t < m.triangle_count(); ++t)
    if (m.corner(t, 0).z() == 0 && m.corner(t, 1).z() == 0 && m.corner(t, 2).z() == 0) {
      EXPECT_NEAR(m.normals[t].z(), -1.0, 1e-15);
    }
  int ridges = 0;
  for (std::uint8_t c : m.convex_edge) ridges += c;
  EXPECT_EQ(ridges, 24);  // 12 cube edges seen from both sides; the 6 diagonals are flat
  // Asked to face inwards (a closed container), the outward cube is turned.
  const TriangleMesh in =
      build(test::box_mesh(Vec3(0, 0, 0), Vec3(1, 1, 1)), TriangleMesh::Facing::Inward);
  EXPECT_NEAR(in.volume, -1.0, 1e-14);
}

TEST(TriangleMeshBuild, BadMeshesAreReported) {
  SimpleMesh cube = test::box_mesh(Vec3(0, 0, 0), Vec3(1, 1, 1));
  // Degenerate triangles are dropped with a note.
  SimpleMesh degenerate = cube;
  degenerate.t.push_back({0, 0, 1});
  degenerate.v.push_back(Vec3(0.5, 0, 0));
  degenerate.t.push_back({0, 1, 8});  // collinear: zero area
  const TriangleMesh d = build(degenerate);
  EXPECT_EQ(d.triangle_count(), 12);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_NE(d.notes[0].find("2 degenerate"), std::string::npos);
  // One triangle flipped: inconsistent orientation.
  SimpleMesh flipped = cube;
  std::swap(flipped.t[3][1], flipped.t[3][2]);
  EXPECT_THROW(build(flipped), std::invalid_argument);
  // An edge shared by three triangles.
  SimpleMesh fin = cube;
  fin.v.push_back(Vec3(0.5, 0.5, 2.0));
  fin.t.push_back({4, 5, 8});
  try {
    build(fin);
    ADD_FAILURE() << "no error for a non-manifold edge";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not a manifold"), std::string::npos) << e.what();
  }
  // A closed surface without volume: a square sheet, both sides.
  SimpleMesh sheet{{Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1, 1, 0), Vec3(0, 1, 0)},
                   {{0, 1, 2}, {0, 2, 3}, {0, 2, 1}, {0, 3, 2}}};
  EXPECT_THROW(build(sheet), std::invalid_argument);
  SimpleMesh out_of_range = cube;
  out_of_range.t.push_back({0, 1, 99});
  EXPECT_THROW(build(out_of_range), std::invalid_argument);
  EXPECT_THROW(TriangleMesh::build(cube.v, {}), std::invalid_argument);
}

TEST(TriangleMeshBuild, ClosedCubeMeshHasTheBoxMassProperties) {
  const Vec3 half(0.5, 1.0, 1.5);
  const TriangleMesh m = build(test::box_mesh(Vec3(2, 3, 4) - half, Vec3(2, 3, 4) + half));
  const double density = 2650.0;
  const MassProperties got = m.mass_properties(density);
  const MassProperties want = box_mass_properties(half, density);
  EXPECT_NEAR(got.volume, want.volume, 1e-12 * want.volume);
  EXPECT_NEAR(got.mass, want.mass, 1e-12 * want.mass);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(got.inertia[k], want.inertia[k], 1e-10 * want.inertia[k]);
  EXPECT_TRUE(m.solid().centroid.isApprox(Vec3(2, 3, 4), 1e-13));
}

TEST(TriangleMeshBuild, TetrahedronVolumeCentroidAndInertia) {
  // Corner tetrahedron with legs a, b, c: V = abc/6, centroid (a, b, c)/4, and about the
  // centroid I_xx = V/80 (3 (b^2 + c^2)) ... in the exact form below (second moments about the
  // origin: int x^2 dV = V a^2/10, int xy dV = V ab/20).
  const double a = 1, b = 2, c = 3;
  const TriangleMesh m = build(tetrahedron());
  const SolidIntegrals s = m.solid();
  const double V = a * b * c / 6.0;
  EXPECT_NEAR(s.volume, V, 1e-14);
  EXPECT_TRUE(s.centroid.isApprox(Vec3(a, b, c) / 4.0, 1e-14));
  const Vec3 g(a, b, c);
  Mat3 second;  // int x_i x_j dV about the origin, then shifted to the centroid
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) second(i, j) = V * g[i] * g[j] / (i == j ? 10.0 : 20.0);
  second -= V * (g / 4.0) * (g / 4.0).transpose();
  const Mat3 inertia = second.trace() * Mat3::Identity() - second;
  EXPECT_TRUE(s.inertia.isApprox(inertia, 1e-12)) << s.inertia << "\n" << inertia;
}

/// Icosphere: an icosahedron subdivided `level` times, vertices on the unit sphere.
test::SimpleMesh icosphere(int level) {
  const double p = (1.0 + std::sqrt(5.0)) / 2.0;
  test::SimpleMesh m;
  for (const Vec3& v : {Vec3(-1, p, 0), Vec3(1, p, 0), Vec3(-1, -p, 0), Vec3(1, -p, 0),
                        Vec3(0, -1, p), Vec3(0, 1, p), Vec3(0, -1, -p), Vec3(0, 1, -p),
                        Vec3(p, 0, -1), Vec3(p, 0, 1), Vec3(-p, 0, -1), Vec3(-p, 0, 1)})
    m.v.push_back(v.normalized());
  m.t = {{0, 11, 5},  {0, 5, 1},  {0, 1, 7},  {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
         {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
         {3, 8, 9},   {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
  for (int l = 0; l < level; ++l) {
    std::map<std::pair<int, int>, int> mid;
    auto middle = [&](int i, int j) {
      const auto key = std::minmax(i, j);
      auto it = mid.find(key);
      if (it != mid.end()) return it->second;
      m.v.push_back((m.v[i] + m.v[j]).normalized());
      return mid[key] = static_cast<int>(m.v.size()) - 1;
    };
    std::vector<std::array<int, 3>> next;
    for (const auto& t : m.t) {
      const int a = middle(t[0], t[1]), b = middle(t[1], t[2]), c = middle(t[2], t[0]);
      next.push_back({t[0], a, c});
      next.push_back({t[1], b, a});
      next.push_back({t[2], c, b});
      next.push_back({a, b, c});
    }
    m.t = next;
  }
  return m;
}

TEST(TriangleMeshBuild, IcosphereConvergesToTheSphere) {
  const MassProperties sphere = sphere_mass_properties(1.0, 1.0);
  double previous = 1.0;
  for (int level = 1; level <= 4; ++level) {
    const TriangleMesh m = build(icosphere(level));
    ASSERT_TRUE(m.closed);
    const MassProperties mp = m.mass_properties(1.0);
    const double err_v = std::abs(mp.volume - sphere.volume) / sphere.volume;
    const double err_i = std::abs(mp.inertia.x() - sphere.inertia.x()) / sphere.inertia.x();
    EXPECT_LT(mp.volume, sphere.volume);                    // inscribed
    EXPECT_LT(err_v, previous / 3.0) << "level " << level;  // second order: about 4x per level
    EXPECT_LT(err_i, 2.0 * err_v + 1e-12);
    previous = err_v;
    if (level == 4) {
      EXPECT_LT(err_v, 2.5e-3);  // measured 2.16e-3
    }
  }
}

}  // namespace
}  // namespace etdem
