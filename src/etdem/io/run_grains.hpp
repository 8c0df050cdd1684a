// The grains of a finished run as the deposit analyses need them (`etdem analyze mound`,
// `analyze runout`): each grain's centre, its world surface nodes and sphere parts, and its
// volume, from DIR/state.csv placed by DIR/shapes.json. Runs without shapes.json (or a
// state.csv without shape names) give each grain as a sphere of its state.csv radius (a box or
// polyhedron: its bounding sphere) and count every grain once. The nodes of [[net]]s are bodies
// in state.csv but not grains: shapes.json marks their shapes ("net") and they are left out
// (counted in `net_nodes`).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "etdem/core/math.hpp"

namespace etdem {

struct RunGrain {
  Vec3 centre{0, 0, 0};                          // [m]
  std::vector<Vec3> nodes;                       // [m] world surface nodes
  std::vector<std::pair<Vec3, double>> spheres;  // world centre [m], radius [m]
  double volume = 1.0;                           // [m^3] (1 when unknown)
  double radius = 0.0;                           // [m] state.csv radius (bounding radius)
};

struct RunGrains {
  std::vector<RunGrain> grains;
  bool from_shapes = false;      // nodes from shapes.json
  bool by_volume = false;        // volumes known (shapes.json with volumes)
  long net_nodes = 0;            // bodies left out: nodes of a [[net]]
  double median_radius() const;  // [m] of the state.csv radii
};

/// Reads DIR/state.csv and, when present, DIR/shapes.json; throws InputError naming the file.
RunGrains read_run_grains(const std::string& dir);

/// World points standing for a grain's surface: its nodes, and for each sphere its top point and
/// 16 points around its horizontal equator (so horizontal extents reach the sphere's edge).
std::vector<Vec3> surface_points(const RunGrain& grain);

}  // namespace etdem
