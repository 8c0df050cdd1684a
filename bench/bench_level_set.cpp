// Level-set queries, the inner loop of every level-set contact: ns per node query of the dense
// grid the engine keeps (trilinear value and interpolated gradient) against OpenVDB's sparse tree
// read through a cached accessor and its trilinear sampler (the representation it was built in),
// and the cost of one grain-grain narrow-phase call at 300 and 2,500 nodes.
//
//   build/release/bench/bench_level_set
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include <openvdb/openvdb.h>
#include <openvdb/tools/Interpolation.h>

#include "etdem/collision/collide.hpp"
#include "etdem/collision/near_node_list.hpp"
#include "etdem/shapes/level_set_build.hpp"

namespace etdem {
namespace {

/// A rock grain of radius 1 cm at 20 cells across its radius, and query points near its surface.
struct Fixture {
  LevelSet ls = level_set_rock(0.01, 0.2, 1.5, 1, {0.0005, 2500});
  std::vector<Vec3> points;
  Fixture() {
    std::mt19937_64 rng(3);
    std::normal_distribution<double> g(0.0, 0.0003);
    for (int k = 0; k < 4096; ++k) {
      const Vec3& n = ls.nodes[k % ls.nodes.size()];
      points.push_back(ls.grid_rotation * n + ls.grid_offset + Vec3(g(rng), g(rng), g(rng)));
    }
  }
};
const Fixture& fixture() {
  static const Fixture f;
  return f;
}

/// The dense grid as an OpenVDB tree on the same nodes.
openvdb::FloatGrid::Ptr as_vdb(const LevelSetGrid& d) {
  openvdb::initialize();
  openvdb::FloatGrid::Ptr vdb = openvdb::FloatGrid::create(float(3 * d.spacing));
  auto xf = openvdb::math::Transform::createLinearTransform(d.spacing);
  xf->postTranslate(openvdb::Vec3d(d.origin.x(), d.origin.y(), d.origin.z()));
  vdb->setTransform(xf);
  auto acc = vdb->getAccessor();
  for (int k = 0; k < d.n[2]; ++k)
    for (int j = 0; j < d.n[1]; ++j)
      for (int i = 0; i < d.n[0]; ++i) acc.setValue(openvdb::Coord(i, j, k), d.phi[d.at(i, j, k)]);
  return vdb;
}

void BM_DenseValueGradient(benchmark::State& state) {
  const Fixture& f = fixture();
  std::size_t k = 0;
  for (auto _ : state) {
    Vec3 g;
    benchmark::DoNotOptimize(f.ls.grid.value_gradient(f.points[k++ & 4095], g));
    benchmark::DoNotOptimize(g);
  }
  state.SetLabel("dense grid, value + gradient");
}
BENCHMARK(BM_DenseValueGradient);

void BM_OpenVdbValueGradient(benchmark::State& state) {
  const Fixture& f = fixture();
  const openvdb::FloatGrid::Ptr vdb = as_vdb(f.ls.grid);
  auto acc = vdb->getConstAccessor();
  openvdb::tools::GridSampler<openvdb::FloatGrid::ConstAccessor, openvdb::tools::BoxSampler>
      sampler(acc, vdb->transform());
  const double h = f.ls.grid.spacing;
  std::size_t k = 0;
  for (auto _ : state) {
    const Vec3& p = f.points[k++ & 4095];
    const openvdb::Vec3d w(p.x(), p.y(), p.z());
    // Value and a central-difference gradient from six more samples (what a sparse tree without
    // a stored gradient needs).
    const double v = sampler.wsSample(w);
    const double gx = sampler.wsSample(w + openvdb::Vec3d(h, 0, 0)) -
                      sampler.wsSample(w - openvdb::Vec3d(h, 0, 0));
    const double gy = sampler.wsSample(w + openvdb::Vec3d(0, h, 0)) -
                      sampler.wsSample(w - openvdb::Vec3d(0, h, 0));
    const double gz = sampler.wsSample(w + openvdb::Vec3d(0, 0, h)) -
                      sampler.wsSample(w - openvdb::Vec3d(0, 0, h));
    benchmark::DoNotOptimize(v);
    benchmark::DoNotOptimize(gx + gy + gz);
  }
  state.SetLabel("OpenVDB tree, accessor + box sampler, 7 samples");
}
BENCHMARK(BM_OpenVdbValueGradient);

void BM_OpenVdbValueOnly(benchmark::State& state) {
  const Fixture& f = fixture();
  const openvdb::FloatGrid::Ptr vdb = as_vdb(f.ls.grid);
  auto acc = vdb->getConstAccessor();
  openvdb::tools::GridSampler<openvdb::FloatGrid::ConstAccessor, openvdb::tools::BoxSampler>
      sampler(acc, vdb->transform());
  std::size_t k = 0;
  for (auto _ : state) {
    const Vec3& p = f.points[k++ & 4095];
    benchmark::DoNotOptimize(sampler.wsSample(openvdb::Vec3d(p.x(), p.y(), p.z())));
  }
  state.SetLabel("OpenVDB tree, value only");
}
BENCHMARK(BM_OpenVdbValueOnly);

void BM_DenseValueOnly(benchmark::State& state) {
  const Fixture& f = fixture();
  std::size_t k = 0;
  for (auto _ : state) benchmark::DoNotOptimize(f.ls.grid.value(f.points[k++ & 4095]));
  state.SetLabel("dense grid, value only");
}
BENCHMARK(BM_DenseValueOnly);

/// One timed narrow-phase call, kept out of line so that callgrind can count the timed calls
/// alone (`--toggle-collect=*timed_call*`), without the setup's.
[[gnu::noinline]] int timed_call(const ShapeTable& t, int sa, const Pose& pa, int sb,
                                 const Pose& pb, double margin, Manifold& m) {
  collide(t, sa, pa, sb, pb, margin, m);
  return m.count;
}

/// Two rocks of `nodes` nodes (the same shape, bounding radius about 1 cm) touching: B slid
/// along x until the deepest gap is about 0, then 0.2 mm further in.
struct TouchingPair {
  ShapeTable t;
  int s = -1;
  Pose pa, pb;
  explicit TouchingPair(int nodes) {
    s = t.add_level_set("rock", level_set_rock(0.01, 0.2, 1.5, 1, {0.0005, nodes}));
    const double r = t.bounding_radius[s];
    pa = Pose(Vec3::Zero(), Quat::Identity());
    Manifold m;
    double lo = 0.0, hi = 2.0 * r;
    for (int k = 0; k < 50; ++k) {
      const double mid = 0.5 * (lo + hi);
      collide(t, s, pa, s, Pose(Vec3(mid, 0, 0), Quat::Identity()), 0.0, m);
      (m.count ? lo : hi) = mid;
    }
    pb = Pose(Vec3(lo - 0.0002, 0, 0), Quat::Identity());
  }
};

/// Two grains of `nodes` nodes touching: one narrow-phase call (both ways, similar sizes) with a
/// margin of range(1) micrometres: 200, 1000 (V9's resting margin, the contact skin of 0.1 of
/// the bounding radius) or 2000 (what a step of 4e-3 s can close at 0.5 m/s, as in V9's flow).
void BM_GrainPair(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const double margin = 1e-6 * static_cast<double>(state.range(1));
  const TouchingPair p(nodes);
  Manifold m;
  for (auto _ : state) benchmark::DoNotOptimize(timed_call(p.t, p.s, p.pa, p.s, p.pb, margin, m));
  state.SetLabel(std::to_string(nodes) + " nodes per grain, both ways");
}
BENCHMARK(BM_GrainPair)
    ->Args({300, 200})
    ->Args({2500, 200})
    ->Args({2500, 1000})
    ->Args({2500, 2000});
// A fixed number of calls, for instruction counts under callgrind (stable on a busy machine):
//   valgrind --tool=callgrind --toggle-collect='*timed_call*'
//     bench_level_set --benchmark_filter='/iterations'
BENCHMARK(BM_GrainPair)->Args({2500, 200})->Iterations(200);
BENCHMARK(BM_GrainPair)->Args({2500, 1000})->Iterations(200);
BENCHMARK(BM_GrainPair)->Args({2500, 2000})->Iterations(200);

[[gnu::noinline]] int timed_listed_call(const TouchingPair& p, double margin,
                                        LevelSetPairLists& lists, NearNodeCounts& counts,
                                        Manifold& m) {
  collide_level_set_level_set_listed(p.t, p.s, p.pa, p.s, p.pb, margin,
                                     kNodeListSkin * p.t.bounding_radius[p.s], lists, counts, m);
  return m.count;
}

/// BM_GrainPair through the pair's near-node lists (the skin of a run, kNodeListSkin of the
/// bounding radius), the two grains at rest against each other: every call after the first tests
/// the listed nodes alone and gives the same manifold.
void BM_GrainPairListed(benchmark::State& state) {
  const double margin = 1e-6 * static_cast<double>(state.range(1));
  const TouchingPair p(static_cast<int>(state.range(0)));
  LevelSetPairLists lists;
  NearNodeCounts counts;
  Manifold m;
  for (auto _ : state) benchmark::DoNotOptimize(timed_listed_call(p, margin, lists, counts, m));
  state.counters["listed_nodes"] =
      static_cast<double>(lists.a_in_b.nodes.size() + lists.b_in_a.nodes.size());
  state.SetLabel(std::to_string(state.range(0)) + " nodes per grain, both ways, listed");
}
BENCHMARK(BM_GrainPairListed)->Args({2500, 200})->Args({2500, 1000});
BENCHMARK(BM_GrainPairListed)->Args({2500, 1000})->Iterations(200);

/// A grain of 2,500 nodes resting tilted on a plane, 1 mm margin: the floor pair of V9.
void BM_GrainPlane(benchmark::State& state) {
  ShapeTable t;
  const int s = t.add_level_set("rock", level_set_rock(0.01, 0.2, 1.5, 1, {0.0005, 2500}));
  const int p = t.add_plane("floor");
  const Quat q(Eigen::AngleAxisd(0.3, Vec3(1, 2, 0).normalized()));
  const Pose pl(Vec3::Zero(), Quat::Identity());
  Manifold m;
  double lo = 0.0, hi = 2.0 * t.bounding_radius[s];
  for (int k = 0; k < 50; ++k) {
    const double mid = 0.5 * (lo + hi);
    collide(t, s, Pose(Vec3(0, 0, mid), q), p, pl, 0.0, m);
    (m.count ? lo : hi) = mid;
  }
  const Pose pa(Vec3(0, 0, lo), q);
  for (auto _ : state) benchmark::DoNotOptimize(timed_call(t, s, pa, p, pl, 0.001, m));
  state.SetLabel("2500 nodes on a plane, 1 mm margin");
}
BENCHMARK(BM_GrainPlane);
BENCHMARK(BM_GrainPlane)->Iterations(200);

}  // namespace
}  // namespace etdem

BENCHMARK_MAIN();
