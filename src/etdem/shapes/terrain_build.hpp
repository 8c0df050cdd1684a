// Building a terrain's narrow band from its height map (terrain.hpp): exact distances to the
// map's triangles at the grid nodes near the surface, column by column.
//
// Why exact distances and not the paper's fast marching (Tan et al. 2024, Eqs. 51-52) or
// OpenVDB: the surface is known exactly (the triangles of the raster), and the band is only a
// few cells wide, so each node's distance is a search over the few cells within its vertical
// gap (the point straight below or above is on the surface, so the distance is at most that
// gap; cells whose box is farther are skipped). Fast marching would add its first-order error
// (an inclined plane would not be exact), and OpenVDB's mesh-to-level-set would need the
// ten-million-triangle mesh as a mesh plus a sparse tree whose queries walk nodes; the column
// storage answers a query with a few array reads. Measured in bench/bench_terrain.cpp.
#pragma once

#include <cstddef>

#include "etdem/shapes/terrain.hpp"

namespace etdem {

struct TerrainBuildOptions {
  double spacing = 0.0;  // m, grid spacing h (> 0)
  double band = 0.0;     // m, distances guaranteed up to this (> 0)
  /// Refuse (std::invalid_argument, message starting "spacing") when the band's upper estimate
  /// needs more bytes than this, before anything large is allocated.
  std::size_t max_bytes = std::size_t(8) << 30;
};

/// The terrain of `map`: grid spacing h, band nodes within band + 2 h of the surface (the
/// interpolation stencil of a point within the band). Uses the OpenMP threads available; the
/// result does not depend on their number. Throws std::invalid_argument for a map smaller
/// than 2 x 2 nodes, non-positive or non-finite spacing or band, and when the memory estimate
/// exceeds max_bytes.
Terrain build_terrain(HeightMap map, const TerrainBuildOptions& options);

}  // namespace etdem
