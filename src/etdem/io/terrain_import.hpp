// Height maps read with GDAL (GeoTIFF, ESRI ASCII grid and the other single-file raster formats
// listed in terrain_import.cpp) into a HeightMap (shapes/terrain.hpp).
//
// GDAL reads only what it is given here: local regular files (no /vsi... virtual or network
// paths, no driver prefixes such as "GTIFF_DIR:"), opened as rasters, read-only, by an
// allow-list of single-file raster drivers. Excluded on purpose: VRT (an XML file that names
// other files and URLs and can run pixel functions), MEM (its "file name" is a memory
// address), the network and database drivers, and side-car files (.aux.xml, directory
// listing) through GDAL_PAM_ENABLED = NO and GDAL_DISABLE_READDIR_ON_OPEN = EMPTY_DIR.
#pragma once

#include <array>
#include <optional>
#include <stdexcept>
#include <string>

#include "etdem/core/math.hpp"
#include "etdem/shapes/terrain.hpp"

namespace etdem {

struct HeightMapRequest {
  std::string path;     // a local raster file
  int raster_band = 1;  // GDAL band number, from 1
  /// Pixel window [first column, first row, columns, rows] (GDAL's order: row 0 at the top).
  std::optional<std::array<long, 4>> crop;
  double scale = 1.0;         // z = scale * value + offset.z
  Vec3 offset{0, 0, 0};       // m, added to every node (x, y: the raster's georeferencing)
  double max_pixels = 2.5e8;  // larger windows are refused before they are read
};

/// A height map input error: the scenario key it concerns ("file", "crop", "raster_band") and
/// a one-line message (what GDAL said, the pixel of a NoData value).
struct HeightMapError : std::runtime_error {
  std::string key;
  HeightMapError(std::string k, const std::string& message)
      : std::runtime_error(message), key(std::move(k)) {}
};

/// Reads the window of the raster: node (i, j) of the map is the centre of pixel column
/// first + i, counted so that x and y grow with i and j (a north-up raster's top row becomes
/// the last j). Throws HeightMapError for unreadable or non-raster files, refused paths, a
/// missing band, a rotated or non-georeferenced raster, a crop outside the raster or smaller
/// than 2 x 2 pixels, NoData or non-finite values inside the window (naming the first pixel),
/// and windows above max_pixels.
HeightMap read_height_map(const HeightMapRequest& request);

/// Writes `map` as a one-band Float32 GeoTIFF, north up, pixel centres at the map's nodes
/// (read_height_map gives it back to float precision); `nodata` is recorded as the band's
/// NoData value. For tests and benchmarks; throws std::runtime_error when GDAL fails.
void write_geotiff(const std::string& path, const HeightMap& map,
                   std::optional<double> nodata = std::nullopt);

/// The GDAL drivers read_height_map accepts, comma-separated (for messages and docs).
std::string height_map_drivers();

}  // namespace etdem
