// Compounds from tetrahedral meshes (ETM 2014 §7.4 builds its crosses from tetrahedral meshes):
// the checks of a tetrahedral mesh, the merging of tetrahedra into convex parts (every part
// convex, every tetrahedron used once, the union's volume and inertia exact), reading meshes
// (.msh) and tetrahedralising closed surfaces (.stl) with Gmsh, with errors naming the file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <stdexcept>

#include "etdem/io/scenario.hpp"
#include "etdem/io/tet_mesh_import.hpp"
#include "etdem/shapes/polyhedron.hpp"
#include "etdem/shapes/shape.hpp"
#include "etdem/shapes/tet_merge.hpp"
#include "etdem/world/world.hpp"
#include "test_mesh_helpers.hpp"

namespace etdem {
namespace {

const std::string kCrossMsh = std::string(ETDEM_SOURCE_DIR) + "/examples/meshes/cross.msh";
const std::string kCrossStl = std::string(ETDEM_SOURCE_DIR) + "/examples/meshes/cross.stl";

/// The 6 tetrahedra of Freudenthal's triangulation of the unit cube [lo, lo + 1]^3, appended to m
/// with shared nodes (nodes are looked up by position).
void add_cube(TetMesh& m, const Vec3& lo, double side = 1.0) {
  auto node = [&](const Vec3& p) {
    for (std::size_t k = 0; k < m.nodes.size(); ++k)
      if ((m.nodes[k] - p).norm() < 1e-12) return static_cast<int>(k);
    m.nodes.push_back(p);
    return static_cast<int>(m.nodes.size()) - 1;
  };
  std::array<int, 3> perm{0, 1, 2};
  do {
    Vec3 p = lo;
    std::array<int, 4> t{};
    t[0] = node(p);
    for (int k = 0; k < 3; ++k) {
      p[perm[k]] += side;
      t[k + 1] = node(p);
    }
    m.tets.push_back(t);
  } while (std::next_permutation(perm.begin(), perm.end()));
}

/// Sum of the tetrahedra's volumes, and each group's hull volume equal to its tetrahedra's.
void expect_convex_tiling(const TetMesh& m, const std::vector<std::vector<int>>& groups) {
  std::vector<int> seen(m.tets.size(), 0);
  for (const auto& g : groups) {
    double v = 0.0;
    for (int t : g) {
      ++seen[t];
      v += tet_volume(m, t);
    }
    const double hull = ConvexPolyhedron::from_points(part_points(m, g)).volume;
    EXPECT_NEAR(hull, v, 1e-12 * v) << "a part is not convex";
  }
  for (std::size_t t = 0; t < seen.size(); ++t) EXPECT_EQ(seen[t], 1) << "tetrahedron " << t;
}

/// The compound of the groups, built as the scenario loader does.
int compound_of(ShapeTable& table, const TetMesh& m, const std::vector<std::vector<int>>& groups) {
  return table.add_compound("body", make_compound(table, add_part_hulls(table, "body", m, groups)));
}

TEST(TetMerge, SixTetrahedraOfACubeAreOneCube) {
  TetMesh m;
  add_cube(m, Vec3(2, -1, 0.5));
  ASSERT_EQ(m.tets.size(), 6u);
  for (int t = 0; t < 6; ++t) EXPECT_NEAR(tet_volume(m, t), 1.0 / 6.0, 1e-15);
  const auto groups = convex_parts(m);
  ASSERT_EQ(groups.size(), 1u);
  expect_convex_tiling(m, groups);
  const ConvexPolyhedron cube = ConvexPolyhedron::from_points(part_points(m, groups[0]));
  EXPECT_EQ(cube.face_count(), 6);
  EXPECT_EQ(cube.vertex_count(), 8);
}

TEST(TetMerge, CrossOfFortyTwoTetrahedraHasTheMassOfSevenCubes) {
  // The cross of three 3a x a x a bars: V = 7 a^3, I = 31/6 rho a^5 about every axis (the closed
  // form of CompoundMass.CrossOfSevenCubesMatchesTheClosedForm), merged or not.
  const double a = 0.02, rho = 2400.0;
  TetMesh m;
  const Vec3 h = Vec3::Constant(0.5 * a);
  add_cube(m, -h, a);
  for (int axis = 0; axis < 3; ++axis)
    for (double s : {-1.0, 1.0}) add_cube(m, s * a * Vec3::Unit(axis) - h, a);
  ASSERT_EQ(m.tets.size(), 42u);
  ASSERT_EQ(m.nodes.size(), 32u);  // conforming: neighbouring cubes share their face nodes
  for (bool merge : {true, false}) {
    const auto groups = convex_parts(m, merge);
    expect_convex_tiling(m, groups);
    if (merge) {
      // No convex part can hold more than one bar: at least the bar and four arm cubes.
      EXPECT_GE(groups.size(), 5u);
      EXPECT_LE(groups.size(), 7u);
    } else {
      EXPECT_EQ(groups.size(), 42u);
    }
    ShapeTable table;
    const int s = compound_of(table, m, groups);
    const MassProperties mp = table.mass_properties(s, rho);
    EXPECT_NEAR(mp.volume, 7 * a * a * a, 1e-12 * a * a * a);
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(mp.inertia[k], 31.0 / 6.0 * rho * std::pow(a, 5), 1e-11 * rho * std::pow(a, 5));
    EXPECT_NEAR(table.bounding_radius[s], std::sqrt(2.75) * a, 1e-12 * a);  // a bar's corner
    EXPECT_NEAR(table.compound(s).input_centre.norm(), 0.0, 1e-14);
  }
}

TEST(TetMerge, AnLShapeIsCutIntoConvexParts) {
  TetMesh m;
  add_cube(m, Vec3(0, 0, 0));
  add_cube(m, Vec3(1, 0, 0));
  add_cube(m, Vec3(0, 1, 0));
  const auto groups = convex_parts(m);
  expect_convex_tiling(m, groups);
  EXPECT_EQ(groups.size(), 2u);  // a 2 x 1 bar and a cube
  ShapeTable table;
  const int s = compound_of(table, m, groups);
  EXPECT_NEAR(table.mass_properties(s, 1.0).volume, 3.0, 1e-12);
}

TEST(TetMerge, ChecksNameTheBadTetrahedron) {
  TetMesh m;
  add_cube(m, Vec3::Zero());
  auto expect_error = [](const TetMesh& bad, const std::string& what) {
    try {
      check_tet_mesh(bad);
      FAIL() << "no error for " << what;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  expect_error(TetMesh{}, "no tetrahedra");
  TetMesh twice = m;
  twice.tets.push_back({0, 1, 2, 0});
  expect_error(twice, "tetrahedron 6: node 0 appears twice");
  TetMesh planar = m;
  planar.nodes.push_back(Vec3(0.3, 0.2, 0.0));
  planar.nodes.push_back(Vec3(0.9, 0.1, 0.0));
  planar.nodes.push_back(Vec3(0.2, 0.8, 0.0));
  const int n = static_cast<int>(planar.nodes.size());
  planar.tets.push_back({0, n - 3, n - 2, n - 1});
  expect_error(planar, "tetrahedron 6 is flat");
  TetMesh range = m;
  range.tets[2][3] = 99;
  expect_error(range, "tetrahedron 2: node index 99 out of range");
  TetMesh nan = m;
  nan.nodes[3].y() = std::nan("");
  expect_error(nan, "node 3 has a non-finite coordinate");
}

TEST(TetMeshImport, CrossMshIsReadWithGmsh) {
  const TetMeshImport in = import_tet_mesh(kCrossMsh, 0.5);
  EXPECT_FALSE(in.generated);
  EXPECT_EQ(in.mesh.tets.size(), 42u);
  EXPECT_EQ(in.mesh.nodes.size(), 32u);
  double v = 0.0;
  for (int t = 0; t < 42; ++t) v += tet_volume(in.mesh, t);
  EXPECT_NEAR(v, 7 * 0.125, 1e-14);  // scale 0.5: seven cubes of 1/8
  Vec3 lo = in.mesh.nodes[0], hi = lo;
  for (const Vec3& p : in.mesh.nodes) lo = lo.cwiseMin(p), hi = hi.cwiseMax(p);
  EXPECT_TRUE(lo.isApprox(Vec3::Constant(-0.75)));
  EXPECT_TRUE(hi.isApprox(Vec3::Constant(0.75)));
}

TEST(TetMeshImport, ClosedSurfaceIsTetrahedralised) {
  // The cross's 60 boundary triangles: Gmsh fills it without refining the surface; the volume is
  // exact whatever tetrahedra it chose, and the merged parts are convex.
  const TetMeshImport in = import_tet_mesh(kCrossStl, 2.0);
  EXPECT_TRUE(in.generated);
  ASSERT_FALSE(in.notes.empty());
  EXPECT_NE(in.notes[0].find("tetrahedralised by Gmsh: 60 triangles"), std::string::npos)
      << in.notes[0];
  double v = 0.0;
  for (int t = 0; t < static_cast<int>(in.mesh.tets.size()); ++t) v += tet_volume(in.mesh, t);
  EXPECT_NEAR(v, 7 * 8.0, 1e-11);
  const auto groups = convex_parts(in.mesh);
  expect_convex_tiling(in.mesh, groups);
  ShapeTable table;
  const int s = compound_of(table, in.mesh, groups);
  const MassProperties mp = table.mass_properties(s, 1.0);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(mp.inertia[k], 31.0 / 6.0 * std::pow(2.0, 5), 1e-9);

  // A box surface (8 nodes, 12 triangles) and a finer icosphere-like closed surface: volumes.
  const test::SimpleMesh box = test::box_mesh(Vec3(0, 0, 0), Vec3(2, 1, 0.5));
  const std::string path = test::temp_path("tet_box.stl");
  test::write_binary_stl(path, box);
  const TetMeshImport b = import_tet_mesh(path);
  double vb = 0.0;
  for (int t = 0; t < static_cast<int>(b.mesh.tets.size()); ++t) vb += tet_volume(b.mesh, t);
  EXPECT_NEAR(vb, 1.0, 1e-14);  // binary STL: float coordinates, exact for this box
  EXPECT_EQ(convex_parts(b.mesh).size(), 1u);
}

TEST(TetMeshImport, BadFilesAreErrorsNamingTheFile) {
  auto expect_error = [](const std::string& path, const std::string& what) {
    try {
      (void)import_tet_mesh(path);
      FAIL() << "no error for " << path;
    } catch (const std::runtime_error& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind(path, 0), 0u) << msg;
      EXPECT_NE(msg.find(what), std::string::npos) << msg;
    }
  };
  expect_error(test::temp_path("absent.msh"), "no such file");
  // An open surface: a box without one triangle.
  test::SimpleMesh open = test::box_mesh(Vec3(0, 0, 0), Vec3(1, 1, 1));
  open.t.pop_back();
  const std::string open_path = test::temp_path("open_box.stl");
  test::write_ascii_stl(open_path, open);
  expect_error(open_path, "not closed");
  // Files written here: one with triangles only, one that is not a mesh, one flat tetrahedron.
  auto expect_file_error = [&](const std::string& name, const std::string& text,
                               const std::string& what) {
    const std::string path = test::temp_path(name);
    std::ofstream(path) << text;
    expect_error(path, what);
  };
  expect_file_error("surface_only.msh",
                    "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n3\n1 0 0 0\n2 1 0 0\n3 0 1 0\n"
                    "$EndNodes\n$Elements\n1\n1 2 2 1 1 1 2 3\n$EndElements\n",
                    "no tetrahedra");
  expect_file_error("junk.msh", "$MeshFormat\nthis is not a mesh\n", "junk.msh");
  expect_file_error("flat.msh",
                    "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n"
                    "4 1 1 0\n$EndNodes\n$Elements\n1\n1 4 2 1 1 1 2 3 4\n$EndElements\n",
                    "tetrahedron 0 is flat");
}

TEST(TetMeshScenario, CrossFromAMeshHasTheMassOfTheCrossOfCubes) {
  // examples/tet_crosses.toml reads cross.msh; the cube-built cross of examples/repose/crosses.toml
  // has the same bar width: equal mass and principal moments (1e-12), one body per grain.
  const Scenario tet = load_scenario(std::string(ETDEM_SOURCE_DIR) + "/examples/tet_crosses.toml");
  const Scenario cubes =
      load_scenario(std::string(ETDEM_SOURCE_DIR) + "/examples/repose/crosses.toml");
  World wt, wc;
  build_world(tet, wt);
  build_world(cubes, wc);
  const int st = wt.bodies.shape[0], sc = wc.bodies.shape[0];
  ASSERT_EQ(wt.shapes.type[st], ShapeType::Compound);
  EXPECT_GE(wt.shapes.compound(st).parts.size(), 5u);
  const MassProperties mt = wt.shapes.mass_properties(st, 2400.0);
  const MassProperties mc = wc.shapes.mass_properties(sc, 2400.0);
  EXPECT_NEAR(mt.mass, mc.mass, 1e-12 * mc.mass);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(mt.inertia[k], mc.inertia[k], 1e-12 * mc.inertia[k]);
  EXPECT_NEAR(wt.shapes.bounding_radius[st], wc.shapes.bounding_radius[sc], 1e-15);
  ASSERT_FALSE(tet.shape_sources.back().notes.empty());
  EXPECT_NE(tet.shape_sources.back().notes.back().find("42 tetrahedra ->"), std::string::npos);
  // The hidden part shapes come before the compound and are named after it.
  EXPECT_EQ(tet.shapes.name[0], "cross.part0");
}

}  // namespace
}  // namespace etdem
