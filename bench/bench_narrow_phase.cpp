// Google Benchmark micro benches of the narrow phase: one etdem::collide() call per iteration
// for each shape pair in a fixed, representative configuration. The reported time is ns per
// call (dispatch through the pair table included); the "points" counter is the number of
// contact points the call returns (a run with 0 where contact is expected is reported as an
// error, so a broken configuration cannot pass as a fast one).
//
//   build/release/bench/bench_narrow_phase [--benchmark_filter=box_box]
#include <benchmark/benchmark.h>

#include <cmath>
#include <numbers>

#include "etdem/collision/collide.hpp"

namespace {

using etdem::Manifold;
using etdem::Pose;
using etdem::Quat;
using etdem::ShapeTable;
using etdem::Vec3;

constexpr double kR = 0.005;      // grain radius of the pour [m]
constexpr double kH = 0.05;       // box half extent [m]
constexpr double kMargin = 1e-3;  // speculative margin [m]

struct Shapes {
  ShapeTable t;
  int sphere, plane, box;
  Shapes() {
    sphere = t.add_sphere("sphere", kR);
    plane = t.add_plane("plane");
    box = t.add_box("box", Vec3(kH, kH, kH));
  }
};

const Shapes& shapes() {
  static const Shapes s;
  return s;
}

Quat about(const Vec3& axis, double angle) { return Quat(Eigen::AngleAxisd(angle, axis)); }

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

}  // namespace

BENCHMARK_MAIN();
