// Google Benchmark micro benches of the narrow phase: one etdem::collide() call per iteration
// for each shape pair in a fixed, representative configuration. The reported time is ns per
// call (dispatch through the pair table included); the "points" counter is the number of
// contact points the call returns (a run with 0 where contact is expected is reported as an
// error, so a broken configuration cannot pass as a fast one).
//
//   build/release/bench/bench_narrow_phase [--benchmark_filter=box_box]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "etdem/collision/collide.hpp"
#include "etdem/shapes/compound.hpp"
#include "etdem/shapes/tet_merge.hpp"
#include "etdem/shapes/triangle_mesh.hpp"

namespace {

using etdem::CompoundPart;
using etdem::ConvexPolyhedron;
using etdem::Manifold;
using etdem::Pose;
using etdem::Quat;
using etdem::ShapeTable;
using etdem::TetMesh;
using etdem::TriangleMesh;
using etdem::Vec3;

constexpr double kR = 0.005;      // grain radius of the pour [m]
constexpr double kH = 0.05;       // box half extent [m]
constexpr double kMargin = 1e-3;  // speculative margin [m]

/// Convex hull of `n` points on an ellipsoid with semi-axes kH (1, 0.8, 0.6), fixed seed: a
/// generic rock-like grain with triangular faces.
std::vector<Vec3> rock(int n) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<Vec3> p;
  for (int k = 0; k < n; ++k)
    p.push_back(kH * Vec3(g(rng), g(rng), g(rng)).normalized().cwiseProduct(Vec3(1.0, 0.8, 0.6)));
  return p;
}

struct Shapes {
  ShapeTable t;
  int sphere, plane, box, pcube, tet, rock20, cell, cross, floor;
  int tet_cross_merged, tet_cross_tets;  // the cross from its 42 tetrahedra: 5 parts, 42 parts
  Shapes() {
    sphere = t.add_sphere("sphere", kR);
    plane = t.add_plane("plane");
    box = t.add_box("box", Vec3(kH, kH, kH));
    std::vector<Vec3> corners;
    for (int k = 0; k < 8; ++k)
      corners.emplace_back((k & 1) ? kH : -kH, (k & 2) ? kH : -kH, (k & 4) ? kH : -kH);
    pcube = t.add_polyhedron("cube", corners);
    // Regular tetrahedron of edge 2 kH, one face down (z = -h/4 of its height h).
    const double a = 2.0 * kH, r = a / std::sqrt(3.0), h = a * std::sqrt(2.0 / 3.0);
    tet = t.add_polyhedron(
        "tet", std::vector<Vec3>{Vec3(r, 0, -0.25 * h), Vec3(-0.5 * r, 0.5 * a, -0.25 * h),
                                 Vec3(-0.5 * r, -0.5 * a, -0.25 * h), Vec3(0, 0, 0.75 * h)});
    rock20 = t.add_polyhedron("rock20", rock(20));
    // The repose cross: a centre cube and six arm cubes of side 2 kH / 3 (overall extent 2 kH).
    const double c = kH / 3.0;
    cell = t.add_box("cell", Vec3(c, c, c));
    std::vector<CompoundPart> parts(7);
    for (int k = 0; k < 7; ++k) parts[k].shape = cell;
    for (int a = 0; a < 3; ++a) {
      parts[1 + 2 * a].position[a] = 2.0 * c;
      parts[2 + 2 * a].position[a] = -2.0 * c;
    }
    cross = t.add_compound("cross", etdem::make_compound(t, parts));
    // The same cross as a tetrahedral mesh (6 Freudenthal tetrahedra per cube), merged into
    // convex parts or not, as the scenario loader builds it from a file.
    TetMesh mesh;
    auto node = [&](const Vec3& p) {
      for (std::size_t k = 0; k < mesh.nodes.size(); ++k)
        if ((mesh.nodes[k] - p).norm() < 1e-12 * kH) return static_cast<int>(k);
      mesh.nodes.push_back(p);
      return static_cast<int>(mesh.nodes.size()) - 1;
    };
    for (const CompoundPart& cube : parts) {
      std::array<int, 3> perm{0, 1, 2};
      do {
        Vec3 q = cube.position - Vec3::Constant(c);
        std::array<int, 4> tt{node(q), 0, 0, 0};
        for (int k = 0; k < 3; ++k) {
          q[perm[k]] += 2.0 * c;
          tt[k + 1] = node(q);
        }
        mesh.tets.push_back(tt);
      } while (std::next_permutation(perm.begin(), perm.end()));
    }
    auto from_tets = [&](const std::string& name, bool merge) {
      const auto parts = etdem::add_part_hulls(t, name, mesh, etdem::convex_parts(mesh, merge));
      return t.add_compound(name, etdem::make_compound(t, parts));
    };
    tet_cross_merged = from_tets("tet_cross_merged", true);
    tet_cross_tets = from_tets("tet_cross_tets", false);
    // A flat floor of 8 x 8 squares (128 triangles) of side kH in z = 0, normals +z.
    std::vector<Vec3> v;
    std::vector<std::array<int, 3>> tri;
    for (int j = 0; j <= 8; ++j)
      for (int i = 0; i <= 8; ++i) v.emplace_back((i - 4) * kH, (j - 4) * kH, 0.0);
    for (int j = 0; j < 8; ++j)
      for (int i = 0; i < 8; ++i) {
        const int q = j * 9 + i;
        tri.push_back({q, q + 1, q + 10});
        tri.push_back({q, q + 10, q + 9});
      }
    floor = t.add_mesh("floor", TriangleMesh::build(v, tri, TriangleMesh::Facing::AsGiven));
  }
};

const Shapes& shapes() {
  static const Shapes s;
  return s;
}

Quat about(const Vec3& axis, double angle) {
  return Quat(Eigen::AngleAxisd(angle, axis));
}

void run(benchmark::State& state, int sa, const Pose& pa, int sb, const Pose& pb,
         bool expect_contact) {
  const ShapeTable& t = shapes().t;
  Manifold m;
  etdem::collide(t, sa, pa, sb, pb, kMargin, m);
  if (expect_contact && m.count == 0) {
    state.SkipWithError("configuration produced no contact point");
    return;
  }
  const int points = m.count;
  for (auto _ : state) {
    etdem::collide(t, sa, pa, sb, pb, kMargin, m);
    benchmark::DoNotOptimize(m);
    benchmark::ClobberMemory();
  }
  state.counters["points"] = points;
}

void BM_sphere_sphere(benchmark::State& state) {
  const auto& s = shapes();
  run(state, s.sphere, Pose(Vec3(0, 0, 0), Quat::Identity()), s.sphere,
      Pose(Vec3(2 * kR - 1e-5, 1e-4, 0), Quat::Identity()), true);
}
BENCHMARK(BM_sphere_sphere)->Name("sphere_sphere/touching");

void BM_sphere_sphere_apart(benchmark::State& state) {
  const auto& s = shapes();
  run(state, s.sphere, Pose(Vec3(0, 0, 0), Quat::Identity()), s.sphere,
      Pose(Vec3(2 * kR + 2 * kMargin, 0, 0), Quat::Identity()), false);
}
BENCHMARK(BM_sphere_sphere_apart)->Name("sphere_sphere/apart");

void BM_sphere_plane(benchmark::State& state) {
  const auto& s = shapes();
  run(state, s.sphere, Pose(Vec3(0.01, 0.02, kR - 1e-5), Quat::Identity()), s.plane,
      Pose(Vec3(0, 0, 0), Quat::Identity()), true);
}
BENCHMARK(BM_sphere_plane)->Name("sphere_plane/resting");

void BM_box_plane(benchmark::State& state) {
  const auto& s = shapes();
  run(state, s.box, Pose(Vec3(0, 0, kH - 1e-5), Quat::Identity()), s.plane,
      Pose(Vec3(0, 0, 0), Quat::Identity()), true);
}
BENCHMARK(BM_box_plane)->Name("box_plane/resting_face");

void BM_box_plane_tilted(benchmark::State& state) {
  // Balanced on an edge: rotated 45 degrees about x, lowest edge just touching.
  const auto& s = shapes();
  run(state, s.box,
      Pose(Vec3(0, 0, kH * std::numbers::sqrt2 - 1e-5), about(Vec3::UnitX(), std::numbers::pi / 4)),
      s.plane, Pose(Vec3(0, 0, 0), Quat::Identity()), true);
}
BENCHMARK(BM_box_plane_tilted)->Name("box_plane/edge");

void BM_sphere_box_face(benchmark::State& state) {
  const auto& s = shapes();
  run(state, s.sphere, Pose(Vec3(0.01, -0.02, kH + kR - 1e-5), Quat::Identity()), s.box,
      Pose(Vec3(0, 0, 0), Quat::Identity()), true);
}
BENCHMARK(BM_sphere_box_face)->Name("sphere_box/face");

void BM_sphere_box_edge(benchmark::State& state) {
  const auto& s = shapes();
  const double d = (kR - 1e-5) / std::numbers::sqrt2;
  run(state, s.sphere, Pose(Vec3(kH + d, 0.0, kH + d), Quat::Identity()), s.box,
      Pose(Vec3(0, 0, 0), Quat::Identity()), true);
}
BENCHMARK(BM_sphere_box_edge)->Name("sphere_box/edge");

void BM_box_box_face(benchmark::State& state) {
  // Stacked boxes, the upper one offset so the faces overlap partly (clipping does work).
  const auto& s = shapes();
  run(state, s.box, Pose(Vec3(0.3 * kH, 0.2 * kH, 2 * kH - 1e-5), about(Vec3::UnitZ(), 0.3)), s.box,
      Pose(Vec3(0, 0, 0), Quat::Identity()), true);
}
BENCHMARK(BM_box_box_face)->Name("box_box/resting_face");

void BM_box_box_edge(benchmark::State& state) {
  // Crossed edges: A turned 45 degrees about x (lowest edge along x), B turned 45 degrees about
  // y (highest edge along y), edges just overlapping.
  const auto& s = shapes();
  const double reach = kH * std::numbers::sqrt2;
  run(state, s.box, Pose(Vec3(0, 0, 2 * reach - 1e-5), about(Vec3::UnitX(), std::numbers::pi / 4)),
      s.box, Pose(Vec3(0, 0, 0), about(Vec3::UnitY(), std::numbers::pi / 4)), true);
}
BENCHMARK(BM_box_box_edge)->Name("box_box/edge_edge");

void BM_box_box_apart(benchmark::State& state) {
  // Overlapping bounding spheres but separated boxes: the separating-axis early out.
  const auto& s = shapes();
  run(state, s.box, Pose(Vec3(0, 0, 2 * kH + 0.01), about(Vec3::UnitZ(), 0.3)), s.box,
      Pose(Vec3(0, 0, 0), Quat::Identity()), false);
}
BENCHMARK(BM_box_box_apart)->Name("box_box/apart");

// Polyhedra. The cube as a polyhedron repeats the box configurations above, so the price of the
// general code against the box code can be read off directly.

void BM_sphere_poly_face(benchmark::State& state) {
  const auto& s = shapes();
  run(state, s.sphere, Pose(Vec3(0.01, -0.02, kH + kR - 1e-5), Quat::Identity()), s.pcube,
      Pose(Vec3(0, 0, 0), Quat::Identity()), true);
}
BENCHMARK(BM_sphere_poly_face)->Name("sphere_poly/cube_face");

void BM_sphere_poly_edge(benchmark::State& state) {
  const auto& s = shapes();
  const double d = (kR - 1e-5) / std::numbers::sqrt2;
  run(state, s.sphere, Pose(Vec3(kH + d, 0.0, kH + d), Quat::Identity()), s.pcube,
      Pose(Vec3(0, 0, 0), Quat::Identity()), true);
}
BENCHMARK(BM_sphere_poly_edge)->Name("sphere_poly/cube_edge");

void BM_sphere_poly_rock(benchmark::State& state) {
  // Sphere resting on the top of the 20-point rock.
  const auto& s = shapes();
  const auto& h = s.t.polyhedron(s.rock20);
  const Vec3 top = h.support(Vec3::UnitZ());
  run(state, s.sphere, Pose(top + Vec3(0, 0, kR - 1e-5), Quat::Identity()), s.rock20,
      Pose(Vec3(0, 0, 0), Quat::Identity()), true);
}
BENCHMARK(BM_sphere_poly_rock)->Name("sphere_poly/rock20_top");

void BM_poly_plane_face(benchmark::State& state) {
  const auto& s = shapes();
  run(state, s.pcube, Pose(Vec3(0, 0, kH - 1e-5), Quat::Identity()), s.plane,
      Pose(Vec3(0, 0, 0), Quat::Identity()), true);
}
BENCHMARK(BM_poly_plane_face)->Name("poly_plane/cube_face");

void BM_poly_plane_rock(benchmark::State& state) {
  const auto& s = shapes();
  const auto& h = s.t.polyhedron(s.rock20);
  const double low = -h.support(-Vec3::UnitZ()).z();
  run(state, s.rock20, Pose(Vec3(0, 0, low - 1e-5), Quat::Identity()), s.plane,
      Pose(Vec3(0, 0, 0), Quat::Identity()), true);
}
BENCHMARK(BM_poly_plane_rock)->Name("poly_plane/rock20_vertex");

void BM_poly_poly_face(benchmark::State& state) {
  // The box_box/resting_face configuration with both cubes as polyhedra: 8 clipped points.
  const auto& s = shapes();
  run(state, s.pcube, Pose(Vec3(0.3 * kH, 0.2 * kH, 2 * kH - 1e-5), about(Vec3::UnitZ(), 0.3)),
      s.pcube, Pose(Vec3(0, 0, 0), Quat::Identity()), true);
}
BENCHMARK(BM_poly_poly_face)->Name("poly_poly/cube_face");

void BM_poly_poly_edge(benchmark::State& state) {
  // The box_box/edge_edge configuration with both cubes as polyhedra.
  const auto& s = shapes();
  const double reach = kH * std::numbers::sqrt2;
  run(state, s.pcube,
      Pose(Vec3(0, 0, 2 * reach - 1e-5), about(Vec3::UnitX(), std::numbers::pi / 4)), s.pcube,
      Pose(Vec3(0, 0, 0), about(Vec3::UnitY(), std::numbers::pi / 4)), true);
}
BENCHMARK(BM_poly_poly_edge)->Name("poly_poly/cube_edge_edge");

void BM_poly_poly_apart(benchmark::State& state) {
  const auto& s = shapes();
  run(state, s.pcube, Pose(Vec3(0, 0, 2 * kH + 0.01), about(Vec3::UnitZ(), 0.3)), s.pcube,
      Pose(Vec3(0, 0, 0), Quat::Identity()), false);
}
BENCHMARK(BM_poly_poly_apart)->Name("poly_poly/cube_apart");

void BM_poly_poly_tet_face(benchmark::State& state) {
  // Tetrahedron on its face on the cube.
  const auto& s = shapes();
  const auto& h = s.t.polyhedron(s.tet);
  const double low =
      -(h.input_rotation * h.support(h.input_rotation.conjugate() * -Vec3::UnitZ())).z();
  run(state, s.tet, Pose(Vec3(0.1 * kH, 0, kH + low - 1e-5), h.input_rotation), s.pcube,
      Pose(Vec3(0, 0, 0), Quat::Identity()), true);
}
BENCHMARK(BM_poly_poly_tet_face)->Name("poly_poly/tet_face_on_cube");

void BM_poly_poly_rock(benchmark::State& state) {
  // Two 20-point rocks, the upper turned, touching (a generic contact).
  const auto& s = shapes();
  const Quat q = about(Vec3(1, 2, 3).normalized(), 0.8);
  // Place by bisection on the contact so the pair just touches.
  double lo = 0.0, hi = 4 * kH;
  Manifold m;
  for (int it = 0; it < 60; ++it) {
    const double mid = 0.5 * (lo + hi);
    etdem::collide(s.t, s.rock20, Pose(Vec3(0, 0, mid), q), s.rock20,
                   Pose(Vec3::Zero(), Quat::Identity()), 0.0, m);
    (m.count > 0 ? lo : hi) = mid;
  }
  run(state, s.rock20, Pose(Vec3(0, 0, lo - 1e-5), q), s.rock20,
      Pose(Vec3(0, 0, 0), Quat::Identity()), true);
}
BENCHMARK(BM_poly_poly_rock)->Name("poly_poly/rock20_rock20");

void BM_box_poly_face(benchmark::State& state) {
  // Box against the cube polyhedron, resting face.
  const auto& s = shapes();
  run(state, s.box, Pose(Vec3(0.3 * kH, 0.2 * kH, 2 * kH - 1e-5), about(Vec3::UnitZ(), 0.3)),
      s.pcube, Pose(Vec3(0, 0, 0), Quat::Identity()), true);
}
BENCHMARK(BM_box_poly_face)->Name("box_poly/cube_face");

void BM_compound_plane(benchmark::State& state) {
  // The cross lying on a plane, turned about z: arm faces on the floor.
  const auto& s = shapes();
  run(state, s.cross, Pose(Vec3(0, 0, kH / 3.0 - 1e-5), about(Vec3::UnitZ(), 0.3)), s.plane,
      Pose(Vec3::Zero(), Quat::Identity()), true);
}
BENCHMARK(BM_compound_plane)->Name("compound_plane/cross_lying");

void BM_compound_compound(benchmark::State& state) {
  // Two crosses, the upper shifted and turned so that its arms rest on the lower one's.
  const auto& s = shapes();
  const double c = kH / 3.0;
  run(state, s.cross, Pose(Vec3(0.5 * c, 0.3 * c, 2.0 * kH - 1e-5), about(Vec3::UnitZ(), 0.2)),
      s.cross, Pose(Vec3::Zero(), Quat::Identity()), true);
}
BENCHMARK(BM_compound_compound)->Name("compound_compound/cross_on_cross");

void BM_tet_cross_pair(benchmark::State& state, bool merged) {
  // The pose of cross_on_cross with the crosses built from tetrahedra (5 or 42 parts).
  const auto& s = shapes();
  const int x = merged ? s.tet_cross_merged : s.tet_cross_tets;
  const double c = kH / 3.0;
  run(state, x, Pose(Vec3(0.5 * c, 0.3 * c, 2.0 * kH - 1e-5), about(Vec3::UnitZ(), 0.2)), x,
      Pose(Vec3::Zero(), Quat::Identity()), true);
}
BENCHMARK_CAPTURE(BM_tet_cross_pair, merged, true)->Name("compound_compound/tet_cross_5_parts");
BENCHMARK_CAPTURE(BM_tet_cross_pair, tets, false)->Name("compound_compound/tet_cross_42_tets");

void BM_sphere_mesh(benchmark::State& state) {
  // A sphere on the tessellated floor, over a shared edge.
  const auto& s = shapes();
  run(state, s.sphere, Pose(Vec3(0.5 * kH, 0.5 * kH, kR - 1e-5), Quat::Identity()), s.floor,
      Pose(Vec3::Zero(), Quat::Identity()), true);
}
BENCHMARK(BM_sphere_mesh)->Name("sphere_mesh/floor_edge");

void BM_box_mesh(benchmark::State& state) {
  // A box resting on the tessellated floor, turned about z: 4 corners over 4 triangles.
  const auto& s = shapes();
  run(state, s.box, Pose(Vec3(0.2 * kH, 0.1 * kH, kH - 1e-5), about(Vec3::UnitZ(), 0.3)), s.floor,
      Pose(Vec3::Zero(), Quat::Identity()), true);
}
BENCHMARK(BM_box_mesh)->Name("box_mesh/resting_face");

void BM_poly_mesh(benchmark::State& state) {
  // The 20-point rock on the floor, lowest vertex touching.
  const auto& s = shapes();
  const ConvexPolyhedron& h = s.t.polyhedron(s.rock20);
  double lowest = 0.0;
  for (const Vec3& x : h.vertices) lowest = std::min(lowest, x.z());
  run(state, s.rock20, Pose(Vec3(0.1 * kH, 0.2 * kH, -lowest - 1e-5), Quat::Identity()), s.floor,
      Pose(Vec3::Zero(), Quat::Identity()), true);
}
BENCHMARK(BM_poly_mesh)->Name("poly_mesh/rock20_vertex");

}  // namespace

BENCHMARK_MAIN();
