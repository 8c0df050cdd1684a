// Building level-set shapes: from a closed triangle surface (OpenVDB's meshToLevelSet, an exact
// signed distance near the surface computed from the triangles, with the sign from a flood fill),
// from analytic generators, or from a stored OpenVDB grid. Every route ends in a dense grid that
// spans the shape plus a padding of `kPaddingCells` cells, its zero contour (OpenVDB's
// volumeToMesh) and finish_level_set (level_set.hpp). OpenVDB stays inside level_set_build.cpp.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "etdem/shapes/level_set.hpp"

namespace etdem {

struct LevelSetOptions {
  double spacing = 0.0;  // m, grid spacing h
  int nodes = 0;         // surface nodes
};

/// Fewest grid cells across a shape's thinnest extent, and the most grid nodes a shape may hold
/// (a float each: 2^28 nodes = 1 GiB), both checked before anything is allocated.
inline constexpr int kMinCellsAcross = 5;
inline constexpr std::int64_t kMaxGridNodes = std::int64_t(1) << 28;
/// Cells of grid beyond the shape on every side.
inline constexpr int kPaddingCells = 4;

/// A closed, consistently oriented triangle surface (any frame; the shape keeps it as its input
/// frame). Throws std::invalid_argument with a one-line reason: too few cells across, too many
/// nodes, or a surface whose enclosed volume disagrees with the grid's by more than 5 % (open or
/// self-intersecting).
LevelSet level_set_from_surface(std::span<const Vec3> vertices,
                                std::span<const std::array<int, 3>> triangles,
                                const LevelSetOptions& o);

/// A sphere of radius r, its grid sampled from the exact distance |p| - r.
LevelSet level_set_sphere(double radius, const LevelSetOptions& o);

/// The superellipsoid (|x/a|^(2/e2) + |y/b|^(2/e2))^(e2/e1) + |z/c|^(2/e1) = 1 with semi-axes
/// (a, b, c) and shape exponents e1 (north-south) and e2 (east-west); e1 = e2 = 1 is the
/// ellipsoid, exponents towards 0 make it boxy. Triangulated along rays from its centre.
LevelSet level_set_superellipsoid(const Vec3& semi_axes, double e1, double e2,
                                  const LevelSetOptions& o);

/// A random star-shaped rock of mean radius `radius`: a sphere whose radius varies by the
/// relative amplitude `roughness` (smooth random waves over the directions), stretched along x
/// and shortened along z so that its long/short axis ratio is `elongation` (>= 1) at equal volume.
/// The same seed gives the same rock.
LevelSet level_set_rock(double radius, double roughness, double elongation, std::uint64_t seed,
                        const LevelSetOptions& o);

/// The first level-set float grid (or the one named `grid_name`) of an OpenVDB file, resampled
/// to nothing: its voxels are the grid nodes, its voxel size the spacing (o.spacing ignored).
LevelSet level_set_from_vdb(const std::string& path, const std::string& grid_name,
                            const LevelSetOptions& o);

/// Writes a dense grid as an OpenVDB level set named `name` (values within 3 h of the surface
/// stored, the rest flood-filled), readable by level_set_from_vdb and by OpenVDB tools.
void save_level_set_vdb(const LevelSetGrid& grid, const std::string& path, const std::string& name);

/// The zero contour of a dense grid (grid frame), as triangles counter-clockwise seen from
/// outside; adaptivity in [0, 1] merges polygons where the surface is flat (OpenVDB).
SurfaceMesh zero_contour(const LevelSetGrid& grid, double adaptivity = 0.0);

}  // namespace etdem
