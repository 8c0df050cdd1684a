// The pour benchmark's setup, shared by bench_pour and bench_solvers: N spheres on a jittered
// simple cubic lattice above the floor of a closed box. The lattice, the jitter and the bed
// height are those of bench/peers/pour_lattice.py, bit for bit: keep the two in step.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "etdem/world/world.hpp"

namespace {

constexpr double kDiameter = 0.01;            // [m]
constexpr double kRadius = 0.5 * kDiameter;   // [m]
constexpr double kDensity = 2650.0;           // [kg/m^3]
constexpr double kRestitution = 0.5;
constexpr double kFriction = 0.5;
constexpr double kSpacing = 1.2 * kDiameter;  // lattice spacing [m]
constexpr double kJitter = 0.25 * (kSpacing - kDiameter);  // max |offset| per axis [m]
constexpr std::uint64_t kSeed = 12345;

struct Geometry {
  int nx = 0, ny = 0, nz = 0;
  double side = 0.0;    // [m] square footprint
  double height = 0.0;  // [m] box height, one spacing of headroom above the top layer
};

/// The lattice of n grains: cubic (nx = ny = ceil(cbrt n)), or with `layers` > 0 that many
/// layers on the smallest square footprint that holds them (a bed of one depth at any n).
inline Geometry geometry(long n, int layers = 0) {
  Geometry g;
  g.nx = 1;
  if (layers > 0)
    while (static_cast<long>(g.nx) * g.nx * layers < n) ++g.nx;
  else
    while (static_cast<long>(g.nx) * g.nx * g.nx < n) ++g.nx;
  g.ny = g.nx;
  const long layer = static_cast<long>(g.nx) * g.ny;
  g.nz = static_cast<int>((n + layer - 1) / layer);
  g.side = g.nx * kSpacing;
  g.height = (g.nz + 1) * kSpacing;
  return g;
}

// splitmix64, and a 53-bit uniform in [0, 1): the generator of pour_lattice.py.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
};

/// Height below which 95 % of the grain centres lie (linear interpolation between order
/// statistics, numpy's default percentile) plus the grain radius.
inline double bed_height(std::vector<double> z, double r) {
  if (z.empty()) return std::nan("");
  std::sort(z.begin(), z.end());
  const double pos = 0.95 * static_cast<double>(z.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, z.size() - 1);
  return z[lo] + (pos - static_cast<double>(lo)) * (z[hi] - z[lo]) + r;
}

/// Adds the closed box (six one-sided planes, named floor, lid, x0, x1, y0, y1) and the N grains
/// to `world` (dt and threads are left as set); `layers` as in geometry(). Returns the grains'
/// body ids.
inline std::vector<int> build_pour(etdem::World& world, long n, int layers = 0) {
  using etdem::Vec3;
  const Geometry g = geometry(n, layers);
  world.settings.gravity = Vec3(0.0, 0.0, -9.81);
  const int mat = world.add_material({"glass", kDensity, kRestitution, kFriction});
  const int sphere = world.shapes.add_sphere("grain", kRadius);
  world.add_plane(Vec3(0, 0, 0), Vec3::UnitZ(), mat, "floor");
  world.add_plane(Vec3(0, 0, g.height), -Vec3::UnitZ(), mat, "lid");
  world.add_plane(Vec3(0, 0, 0), Vec3::UnitX(), mat, "x0");
  world.add_plane(Vec3(g.side, 0, 0), -Vec3::UnitX(), mat, "x1");
  world.add_plane(Vec3(0, 0, 0), Vec3::UnitY(), mat, "y0");
  world.add_plane(Vec3(0, g.side, 0), -Vec3::UnitY(), mat, "y1");
  SplitMix64 rng{kSeed};
  std::vector<int> grains;
  grains.reserve(static_cast<std::size_t>(n));
  for (long k = 0; k < n; ++k) {
    const long i = k % g.nx, j = (k / g.nx) % g.ny, l = k / (static_cast<long>(g.nx) * g.ny);
    const double dx = (2.0 * rng.uniform() - 1.0) * kJitter;
    const double dy = (2.0 * rng.uniform() - 1.0) * kJitter;
    const double dz = (2.0 * rng.uniform() - 1.0) * kJitter;
    grains.push_back(world.add_body(
        sphere, mat,
        Vec3((i + 0.5) * kSpacing + dx, (j + 0.5) * kSpacing + dy, (l + 0.5) * kSpacing + dz)));
  }
  return grains;
}

}  // namespace
