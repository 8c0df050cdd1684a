// Terrain: a static wall given by a height map, z = H(x, y), solid below (Tan, Wijesuriya &
// Sitar 2024, section 6.3: "a digitized topography and its LS representation ... we only saved a
// narrow band of the grid adjacent to the zero LS contours"). Grains meet it as they meet a
// level-set grain: their nodes are placed in the terrain's signed distance field, the value is
// the gap and its gradient the normal.
//
// Two layers:
// - HeightMap: the raster's nodes (heights at pixel centres), the surface a piecewise-linear
//   interpolant over them (each cell split along its (i, j)-(i+1, j+1) diagonal: the triangles
//   the distance is measured to and the ones drawn).
// - Terrain: the signed distance to that surface on a cubic grid of spacing h, kept only within
//   `stored` of the surface (built by terrain_build.hpp). The surface is a height field, so the
//   signed distance never decreases going up a vertical line (the solid below a point of the
//   solid is solid): each vertical column of the grid stores the run of its nodes with
//   |phi| < stored, k0(i, j) .. k0(i, j) + length - 1; a node below the run is deeper than
//   `stored` (value -stored), one above it farther (+stored). A query is a few array reads (no
//   tree walk) and the memory is the band's nodes only.
//
// Beyond its raster the surface goes on: each edge's heights continued outwards (a corner's
// height beyond a corner), as HeightMap::height reads it. The grid covers the raster plus a rim
// at least `stored` wide, built from the extended map, and a point beyond the grid reads the
// nearest column: there the continued surface is the same along the way out, so the rim's edge
// column holds the exact distance for every point farther out. A grain spilling over the edge
// meets the continued ground, not a cliff or a hole (a distance that jumped across the edge let
// grains in deep; docs/design.md, "Terrain").
//
// Every stored node holds the exact distance to the triangles and the exact gradient (the unit
// direction from the closest surface point), so trilinear interpolation is exact wherever the
// closest points of a cell's corners lie on one plane (an inclined plane raster), and elsewhere
// its error is that of interpolating a distance function across a crease (docs/design.md).
//
// The terrain lives in the frame of its body, which build_world places at the origin unrotated,
// so terrain coordinates are world coordinates.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "etdem/core/math.hpp"

namespace etdem {

struct HeightMap {
  int nx = 0, ny = 0;         // nodes along x and y (>= 2 each)
  double x0 = 0.0, y0 = 0.0;  // m, position of node (0, 0)
  double dx = 0.0, dy = 0.0;  // m, node spacing (> 0)
  std::vector<double> z;      // m, nx * ny heights, node (i, j) at i + nx * j

  double at(int i, int j) const { return z[static_cast<std::size_t>(i) + nx * std::size_t(j)]; }
  double x_max() const { return x0 + (nx - 1) * dx; }
  double y_max() const { return y0 + (ny - 1) * dy; }
  /// Height of the piecewise-linear surface at (x, y), (x, y) clamped to the map's footprint:
  /// beyond its raster the surface continues its edge heights (docs/design.md, "Terrain").
  double height(double x, double y) const;
  /// The map with px node columns and py node rows of its edge heights added on every side (the
  /// same surface as height() reads it, drawn px dx and py dy farther).
  HeightMap extended(int px, int py) const;
  /// Unit normal of the surface at (x, y) (up; the triangle holding the clamped point).
  Vec3 normal(double x, double y) const;
  /// Distance of p to the triangles of cells [i0, i1] x [j0, j1] (clamped to the map) when
  /// below `best`, with the closest point; else `best` and `closest` untouched. Cells whose box
  /// is farther than the best so far are skipped.
  double distance(const Vec3& p, int i0, int i1, int j0, int j1, double best, Vec3& closest) const;
  /// Cell (i, j) = [x0 + i dx, x0 + (i + 1) dx] x [...]: the one holding (x, y), clamped.
  int cell_x(double x) const;
  int cell_y(double y) const;
};

/// One stored grid node: signed distance and its gradient (unit, out of the solid), the
/// gradient's components in units of 1/32767 (12 bytes a node instead of 16; the direction to
/// 3e-5 rad).
struct TerrainNode {
  float phi;             // m
  std::int16_t grad[3];  // unit vector x 32767
  std::int16_t unused = 0;
};
inline std::int16_t encode_unit(double c) {
  return static_cast<std::int16_t>(std::lround(std::clamp(c, -1.0, 1.0) * 32767.0));
}
inline constexpr double kUnitScale = 1.0 / 32767.0;

/// Where a column's run of stored nodes starts in Terrain::nodes, and its k range.
struct TerrainColumn {
  std::int64_t start = 0;  // index of node k0 in Terrain::nodes
  std::int32_t k0 = 0;     // grid index of the lowest stored node
  std::int32_t count = 0;  // stored nodes (0: the whole column is beyond the band)
};

struct Terrain {
  HeightMap map;
  double h = 0.0;        // m, grid spacing
  double band = 0.0;     // m, distances guaranteed to this (the band the loader asked for)
  double stored = 0.0;   // m, distances stored up to this (band + the interpolation stencil)
  Vec3 origin{0, 0, 0};  // position of grid node (0, 0, 0)
  int gx = 0, gy = 0;    // columns along x and y
  std::vector<TerrainColumn> columns;  // gx * gy, column (i, j) at i + gx j
  std::vector<TerrainNode> nodes;      // the stored runs, column after column
  Vec3 lo{0, 0, 0}, hi{0, 0, 0};       // m, box of the raster's surface
  double bounding_radius = 0.0;        // m, about the origin of the terrain's frame
  double build_seconds = 0.0;          // s, wall time of the band's construction
  std::string source;                  // file the heights came from ("" = built in code)

  /// Signed distance at p (terrain frame); `stored` far from the surface or outside the grid.
  double value(const Vec3& p) const;
  /// Signed distance and its gradient (trilinear blends of the stored values and gradients);
  /// outside the grid, `stored` and a zero gradient (no contact there).
  double value_gradient(const Vec3& p, Vec3& gradient) const;
  /// value(p) in `value`; when it is below `limit`, also the gradient (as value_gradient) and
  /// true: a contact test blends the gradient only where there is a contact.
  bool value_below(const Vec3& p, double limit, double& value, Vec3& gradient) const;
  /// True when a ball of radius r at c may come within r of the surface: it reaches the
  /// surface's height range (the cheap reject before any node query; the surface continues
  /// horizontally without end).
  bool may_touch(const Vec3& c, double r) const {
    return c.z() + r >= lo.z() && c.z() - r <= hi.z();
  }
  /// Bytes held by the band (nodes and columns) and the height map.
  std::size_t memory_bytes() const;
};

}  // namespace etdem
