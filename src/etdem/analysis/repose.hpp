// Angle of repose by the grid method of ETM 2014 §7.4. The container floor is divided into
// 8 x 16 cells, the longer horizontal side into 16 (the paper's pile runs along it), the shorter
// into 8. Each cell's height is that of the highest surface node over the cell: "the highest
// nodes identified in each of the sixteen cells" (the paper's grains are tetrahedral meshes; here
// the nodes are a box's corners, a polyhedron's vertices, a compound's parts' nodes and a sphere's
// top point, io/shape_nodes.hpp). Without the shapes, a grain stands for one node, its top
// (centre z + the grain's top offset) over its centre. Each of the 8 rows gives a least-squares
// line through the (cell centre along the long side, height) points of its non-empty cells, and the
// row's angle is atan(|slope|). The result is the 8 angles, their mean and the paper's spread:
// the mean of (max - mean) and (mean - min). A pure function of arrays, so it is unit-tested on
// synthetic piles.
//
// Choices where the paper is silent: nodes (grains) that lie outside the container's
// horizontal extent (e.g. those that flowed out after a wall was removed) are ignored; a row
// with fewer than 3 non-empty cells has no angle (NaN) and is left out of mean and spread; the
// grid covers the container's full floor, so empty cells where the pile has run out are simply
// skipped (no zero heights are invented).
#pragma once

#include <span>
#include <vector>

#include "etdem/core/math.hpp"

namespace etdem {

struct ReposeSettings {
  int long_cells = 16;  // cells along the longer horizontal side
  int short_cells = 8;  // cells (rows) along the shorter side
  int min_points = 3;   // non-empty cells a row needs for a line
};

struct ReposeResult {
  int long_axis = 0;                 // 0 = x, 1 = y: the axis the rows run along
  std::vector<double> angles;        // [deg] one per row (NaN when the row has too few points)
  std::vector<double> slopes;        // dz / d(long axis), signed
  std::vector<double> intercepts;    // [m] fitted height at the floor's centre (NaN: no angle)
  std::vector<double> cell_centres;  // [m] along the long axis, relative to the floor's centre
  std::vector<int> points;           // non-empty cells per row
  std::vector<std::vector<double>> heights;  // [row][cell] highest top [m], NaN when empty
  double mean = 0.0;                         // [deg] over rows with an angle (NaN when none)
  double spread = 0.0;                       // [deg] ((max - mean) + (mean - min)) / 2
  double min = 0.0, max = 0.0;               // [deg]
  int rows_used = 0;
};

/// The grid method on surface nodes (world points): each cell's height is the highest node whose
/// horizontal position lies over it.
ReposeResult repose_angle_of_nodes(std::span<const Vec3> nodes, const Vec3& container_min,
                                   const Vec3& container_max, const ReposeSettings& settings = {});

/// One node per grain, its top over its centre. `top_offsets[k]`: height of grain k's highest point
/// above its centre (sphere radius).
ReposeResult repose_angle(std::span<const Vec3> positions, std::span<const double> top_offsets,
                          const Vec3& container_min, const Vec3& container_max,
                          const ReposeSettings& settings = {});

/// Grains whose centre lies over the container's floor (its horizontal extent): how many, and
/// how fast the fastest and the mean one move. A heap still creeping has not reached its angle of
/// repose.
struct FloorMotion {
  long grains = 0;
  double max_speed = 0.0, mean_speed = 0.0;  // [m/s]
};

/// `positions[k]` and `velocities[k]`: grain k's centre and velocity.
FloorMotion floor_motion(std::span<const Vec3> positions, std::span<const Vec3> velocities,
                         const Vec3& container_min, const Vec3& container_max);

}  // namespace etdem
