// A world built in a few lines, stepped, its energies read: the set-up of the validation cases
// (validation/cases.hpp, `etdem validate`) and of the physics tests
// (tests/support/test_world_fixture.hpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <vector>

#include "etdem/world/world.hpp"

namespace etdem::validation {

/// Vertices of a seeded random convex rock: n points on an ellipsoid of semi-axes s (1, 0.8, 0.6).
inline std::vector<Vec3> random_rock(int n, double s, std::mt19937_64& rng) {
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<Vec3> p;
  for (int k = 0; k < n; ++k)
    p.push_back(s * Vec3(g(rng), g(rng), g(rng)).normalized().cwiseProduct(Vec3(1.0, 0.8, 0.6)));
  return p;
}

struct Scene {
  World world;
  int material = -1;
  std::map<double, int> sphere_shapes;

  explicit Scene(double restitution = 1.0, double friction = 0.0, double density = 2650.0) {
    material = world.add_material({"m", density, restitution, friction});
    world.settings.gravity = Vec3::Zero();
  }
  int add_floor(double z = 0.0) {
    return world.add_plane(Vec3(0, 0, z), Vec3::UnitZ(), material, "floor");
  }
  int add_plane(const Vec3& p, const Vec3& n) { return world.add_plane(p, n, material); }
  int add_sphere(double r, const Vec3& x, const Vec3& v = Vec3::Zero(),
                 const Vec3& w = Vec3::Zero()) {
    auto it = sphere_shapes.find(r);
    const int s = it != sphere_shapes.end()
                      ? it->second
                      : (sphere_shapes[r] = world.shapes.add_sphere("sphere", r));
    return world.add_body(s, material, x, Quat::Identity(), v, w);
  }
  int add_box(const Vec3& half, const Vec3& x, const Quat& q = Quat::Identity(),
              const Vec3& v = Vec3::Zero(), const Vec3& w = Vec3::Zero(), bool fixed = false) {
    const int s = world.shapes.add_box("box", half);
    return world.add_body(s, material, x, q, v, w, fixed);
  }
  /// An open-top box container of five planes, normals inward.
  void add_container(const Vec3& lo, const Vec3& hi) {
    world.add_plane(lo, Vec3::UnitZ(), material, "floor");
    world.add_plane(lo, Vec3::UnitX(), material, "left");
    world.add_plane(hi, -Vec3::UnitX(), material, "right");
    world.add_plane(lo, Vec3::UnitY(), material, "front");
    world.add_plane(hi, -Vec3::UnitY(), material, "back");
  }
  void simulate(double seconds) {
    const long n = std::lround(seconds / world.settings.dt);
    for (long i = 0; i < n; ++i) world.step();
  }
  void steps(long n) {
    for (long i = 0; i < n; ++i) world.step();
  }
  Vec3 linear_momentum() const {
    Vec3 p = Vec3::Zero();
    for (int i = 0; i < world.bodies.count(); ++i)
      if (world.bodies.is_dynamic(i)) p += world.bodies.mass[i] * world.bodies.velocity[i];
    return p;
  }
  double kinetic() const {
    double e = 0;
    for (int i = 0; i < world.bodies.count(); ++i) e += world.bodies.kinetic_energy(i);
    return e;
  }
  /// FNV-1a over the raw bits of every body's position, orientation and velocities.
  std::uint64_t state_hash() const {
    std::uint64_t h = 1469598103934665603ull;
    auto mix = [&](double d) {
      std::uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      for (int k = 0; k < 8; ++k) {
        h ^= (bits >> (8 * k)) & 0xff;
        h *= 1099511628211ull;
      }
    };
    const Bodies& b = world.bodies;
    for (int i = 0; i < b.count(); ++i) {
      for (int k = 0; k < 3; ++k)
        mix(b.position[i][k]), mix(b.velocity[i][k]), mix(b.angular_velocity[i][k]);
      mix(b.orientation[i].w()), mix(b.orientation[i].x()), mix(b.orientation[i].y()),
          mix(b.orientation[i].z());
    }
    return h;
  }
};

/// Spheres of radius r on a cubic lattice of spacing s filling [lo, lo + n*s), with a small
/// deterministic jitter and random velocities of magnitude up to vmax.
inline void fill_spheres(Scene& t, int nx, int ny, int nz, double r, double s, const Vec3& lo,
                         double vmax, unsigned seed, double jitter = 0.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const Vec3 x = lo + Vec3((i + 0.5) * s, (j + 0.5) * s, (k + 0.5) * s) +
                       jitter * (s - 2 * r) * 0.5 * Vec3(u(rng), u(rng), u(rng));
        const Vec3 v = vmax * Vec3(u(rng), u(rng), u(rng));
        t.add_sphere(r, x, v);
      }
}

}  // namespace etdem::validation
