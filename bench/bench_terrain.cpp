// Terrain queries, the inner loop of every grain-terrain contact: ns per node query of the
// column-stored band (trilinear value, and value with the interpolated gradient), for points
// gathered in one 5 m patch (an avalanche front: the columns stay in cache) and scattered over
// the whole map (every query a cache miss), and one grain-terrain narrow-phase call (a level-set
// rock of 300 and 2,500 nodes, a sphere, a box) against the same grain on a plane.
//
//   build/release/bench/bench_terrain
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "etdem/collision/collide.hpp"
#include "etdem/shapes/level_set_build.hpp"
#include "etdem/shapes/terrain_build.hpp"

namespace etdem {
namespace {

/// A 40 m x 12.8 m chute at 25 degrees with 10 cm bumps, pixels of 5 cm (800 x 256), band for
/// grains of 25 cm: 0.3 m.
struct Fixture {
  ShapeTable shapes;
  int terrain = -1, plane = -1;
  std::vector<Vec3> local, scattered;
  Fixture() {
    HeightMap m;
    m.nx = 800, m.ny = 256, m.dx = m.dy = 0.05;
    const double s = std::tan(25.0 * M_PI / 180.0);
    for (int j = 0; j < m.ny; ++j)
      for (int i = 0; i < m.nx; ++i) {
        const double x = i * m.dx, y = j * m.dy;
        m.z.push_back(-s * x + 0.1 * std::sin(1.3 * x) * std::cos(0.9 * y));
      }
    const HeightMap copy = m;
    terrain = shapes.add_terrain(
        "chute", std::make_shared<Terrain>(build_terrain(std::move(m), {0.05, 0.3})));
    plane = shapes.add_plane("plane");
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(0.0, 1.0), off(-0.1, 0.1);
    for (int k = 0; k < 4096; ++k) {
      const double lx = 10.0 + 5.0 * u(rng), ly = 4.0 + 5.0 * u(rng);
      local.emplace_back(lx, ly, copy.height(lx, ly) + off(rng));
      const double sx = 39.0 * u(rng), sy = 12.0 * u(rng);
      scattered.emplace_back(sx, sy, copy.height(sx, sy) + off(rng));
    }
  }
};
const Fixture& fixture() {
  static const Fixture f;
  return f;
}

void BM_TerrainValueGradientLocal(benchmark::State& state) {
  const Fixture& f = fixture();
  const Terrain& t = f.shapes.terrain(f.terrain);
  std::size_t k = 0;
  for (auto _ : state) {
    Vec3 g;
    benchmark::DoNotOptimize(t.value_gradient(f.local[k++ & 4095], g));
    benchmark::DoNotOptimize(g);
  }
}
BENCHMARK(BM_TerrainValueGradientLocal);

void BM_TerrainValueGradientScattered(benchmark::State& state) {
  const Fixture& f = fixture();
  const Terrain& t = f.shapes.terrain(f.terrain);
  std::size_t k = 0;
  for (auto _ : state) {
    Vec3 g;
    benchmark::DoNotOptimize(t.value_gradient(f.scattered[k++ & 4095], g));
    benchmark::DoNotOptimize(g);
  }
}
BENCHMARK(BM_TerrainValueGradientScattered);

void BM_TerrainValueLocal(benchmark::State& state) {
  const Fixture& f = fixture();
  const Terrain& t = f.shapes.terrain(f.terrain);
  std::size_t k = 0;
  for (auto _ : state) benchmark::DoNotOptimize(t.value(f.local[k++ & 4095]));
}
BENCHMARK(BM_TerrainValueLocal);

/// One narrow-phase call: a grain resting on the chute (tilted to the slope, 1 mm in) against
/// the terrain, or against a plane of the same slope through the same point.
void narrow_phase(benchmark::State& state, int grain) {
  const Fixture& f = fixture();
  const double th = 25.0 * M_PI / 180.0;
  const Vec3 n(std::sin(th), 0, std::cos(th));
  const Terrain& t = f.shapes.terrain(f.terrain);
  const Vec3 foot(12.0, 6.0, t.map.height(12.0, 6.0));
  const double lowest = f.shapes.min_thickness(grain) / 2.0;
  const Pose pose(foot + (lowest - 0.001) * n, Quat::FromTwoVectors(Vec3::UnitZ(), n));
  const bool on_plane = state.range(0) == 1;
  const Pose plane_pose(foot, Quat::FromTwoVectors(Vec3::UnitZ(), n));
  Manifold m;
  for (auto _ : state) {
    if (on_plane)
      collide(f.shapes, grain, pose, f.plane, plane_pose, 0.01, m);
    else
      collide(f.shapes, grain, pose, f.terrain, Pose(), 0.01, m);
    benchmark::DoNotOptimize(m.count);
  }
  state.counters["points"] = m.count;
}

void BM_RockOnTerrain(benchmark::State& state) {
  static Fixture& f = const_cast<Fixture&>(fixture());
  static const int rock300 =
      f.shapes.add_level_set("rock300", level_set_rock(0.25, 0.2, 1.5, 1, {0.025, 300}));
  static const int rock2500 =
      f.shapes.add_level_set("rock2500", level_set_rock(0.25, 0.2, 1.5, 1, {0.0125, 2500}));
  narrow_phase(state, state.range(1) == 300 ? rock300 : rock2500);
}
BENCHMARK(BM_RockOnTerrain)->ArgsProduct({{0, 1}, {300, 2500}})->ArgNames({"plane", "nodes"});

void BM_SphereOnTerrain(benchmark::State& state) {
  static Fixture& f = const_cast<Fixture&>(fixture());
  static const int sphere = f.shapes.add_sphere("ball", 0.25);
  narrow_phase(state, sphere);
}
BENCHMARK(BM_SphereOnTerrain)->Arg(0)->Arg(1)->ArgName("plane");

void BM_BoxOnTerrain(benchmark::State& state) {
  static Fixture& f = const_cast<Fixture&>(fixture());
  static const int box = f.shapes.add_box("box", Vec3(0.3, 0.2, 0.1));
  narrow_phase(state, box);
}
BENCHMARK(BM_BoxOnTerrain)->Arg(0)->Arg(1)->ArgName("plane");

}  // namespace
}  // namespace etdem

BENCHMARK_MAIN();
