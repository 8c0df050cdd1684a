// The horizontal footprint of a deposit of grains (`etdem analyze runout`, the deposit map): each
// grain covers the convex hull of its surface nodes projected onto the horizontal plane, plus
// the disc of each of its spheres; a square cell of the map is covered when its centre lies in
// some grain's footprint. Pure functions of points, unit-tested on synthetic deposits.
#pragma once

#include <span>
#include <vector>

#include <Eigen/Dense>

#include "etdem/core/math.hpp"

namespace etdem {

using Vec2 = Eigen::Vector2d;

/// A grain seen from above.
struct GrainFootprint {
  std::vector<Vec2> hull;                      // convex, counter-clockwise ([m]; may be empty)
  std::vector<std::pair<Vec2, double>> discs;  // sphere parts: centre [m], radius [m]
  Vec3 centre{0, 0, 0};                        // [m] centre of mass
  double top = 0.0;                            // [m] highest point (z)
  double weight = 1.0;                         // its share of the deposit (volume or 1)
};

/// Convex hull of points in the plane, counter-clockwise, without collinear points (Andrew's
/// monotone chain). Fewer than 3 distinct points come back as they are (deduplicated).
std::vector<Vec2> convex_hull_2d(std::vector<Vec2> points);

/// Whether p lies in the convex counter-clockwise polygon (boundary included).
bool inside_convex(std::span<const Vec2> hull, const Vec2& p);

/// The footprint of a grain from its world surface points (projected) and its spheres (world
/// centre, radius).
GrainFootprint make_footprint(std::span<const Vec3> nodes,
                              std::span<const std::pair<Vec3, double>> spheres, const Vec3& centre,
                              double weight);

/// The deposit on a grid of square cells of side `cell`, aligned with the axes, cell (i, j)
/// spanning [lo + i cell, lo + (i + 1) cell) x [...].
struct DepositMap {
  double cell = 0.0;        // [m]
  Vec2 lo{0, 0};            // [m] corner of cell (0, 0)
  int nx = 0, ny = 0;       // cells along x and y
  std::vector<double> top;  // [m] highest top of a grain covering the cell (NaN: empty)
  std::vector<int> grains;  // grains covering the cell
  long covered = 0;         // cells covered
  double area() const { return static_cast<double>(covered) * cell * cell; }  // [m^2]
  Vec2 centre(int i, int j) const { return lo + Vec2((i + 0.5) * cell, (j + 0.5) * cell); }
  int index(int i, int j) const { return j * nx + i; }
};

/// At most this many cells: a finer grid is refused (std::invalid_argument) before allocating.
inline constexpr long kMaxDepositCells = 20'000'000;

/// Rasterises the grains' footprints. Throws std::invalid_argument for cell <= 0, no grains or
/// more than kMaxDepositCells cells.
DepositMap deposit_map(std::span<const GrainFootprint> grains, double cell);

}  // namespace etdem
