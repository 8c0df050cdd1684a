// Random piles of cubes, convex rocks, crosses and level-set rocks poured into a box, as the
// repose examples (tests/world/test_energy_piles.cpp, tests/world/test_pile_penetration.cpp).
#pragma once

#include <random>
#include <vector>

#include "etdem/shapes/level_set_build.hpp"
#include "test_world_fixture.hpp"

namespace etdem::test {

enum class Grain { Cube, Rock, Cross, LevelSetRock };

inline const char* grain_name(Grain g) {
  switch (g) {
    case Grain::Cube:
      return "cubes";
    case Grain::Rock:
      return "rocks";
    case Grain::Cross:
      return "crosses";
    case Grain::LevelSetRock:
      return "levelset_rocks";
  }
  return "";
}

/// 5 x 4 x `layers` grains of about 1 cm, randomly oriented on an 18 mm lattice (jittered by up
/// to 1 mm), falling from 0.25 m into a 9 x 7.2 cm box: e = 0.3, mu = 0.5, dt = 1/600 s as the
/// repose examples. At 18 mm a corner can start up to 0.7 mm inside a wall or a neighbour (the
/// cube's and the cross's bounding diameters are 17.3 and 17.7 mm); a `spacing` of 20.5 mm
/// starts every grain apart.
inline void build_pile(TestWorld& t, Grain g, unsigned seed, int layers, double spacing = 0.018) {
  t.world.settings.gravity = Vec3(0, 0, -9.81);
  t.add_container(Vec3(0, 0, 0), Vec3(5 * spacing, 4 * spacing, 1.0));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<int> shapes;
  if (g == Grain::Cube) shapes.push_back(t.world.shapes.add_box("cube", Vec3::Constant(0.005)));
  if (g == Grain::Rock)
    for (int k = 0; k < 4; ++k)
      shapes.push_back(t.world.shapes.add_polyhedron("rock", random_rock(10 + 3 * k, 0.007, rng)));
  if (g == Grain::LevelSetRock)  // rough, elongated, about 15 mm long, 300 nodes as V9's light run
    for (int k = 0; k < 4; ++k)
      shapes.push_back(t.world.shapes.add_level_set(
          "ls_rock", level_set_rock(0.0055, 0.2, 1.2 + 0.1 * k, 11 + k, {0.0006, 300})));
  if (g == Grain::Cross) {
    const double a = 0.016 / 3.0;  // 16 mm arm to arm: fits the lattice as the crosses example
    const int cube = t.world.shapes.add_box("cube", Vec3::Constant(0.5 * a));
    std::vector<CompoundPart> parts{{cube, Vec3::Zero()}};
    for (int axis = 0; axis < 3; ++axis)
      for (double s : {-1.0, 1.0}) parts.push_back({cube, s * a * Vec3::Unit(axis)});
    shapes.push_back(t.world.shapes.add_compound("cross", make_compound(t.world.shapes, parts)));
  }
  int n = 0;
  for (int k = 0; k < layers; ++k)
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 5; ++i, ++n) {
        // Released 0.25 m up: grains land at about 2.5 m/s, as in the 42-layer repose piles.
        const Vec3 x = spacing * Vec3(i + 0.5, j + 0.5, k + 0.7) + Vec3(0, 0, 0.25) +
                       0.001 * Vec3(u(rng), u(rng), u(rng));
        const Quat q = Quat(u(rng), u(rng), u(rng), u(rng)).normalized();
        t.world.add_body(shapes[n % shapes.size()], t.material, x, q);
      }
}

}  // namespace etdem::test
