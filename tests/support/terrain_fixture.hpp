// Height maps for tests, built in code or written as ESRI ASCII grids (plain text that GDAL
// reads), so no test needs Python or a download.
#pragma once

#include <cmath>
#include <fstream>
#include <functional>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "etdem/shapes/terrain_build.hpp"

namespace etdem::test {

/// nx x ny nodes spaced d from (x0, y0), heights z = f(x, y).
inline HeightMap height_map(int nx, int ny, double d, double x0, double y0,
                            const std::function<double(double, double)>& f) {
  HeightMap m;
  m.nx = nx, m.ny = ny, m.dx = d, m.dy = d, m.x0 = x0, m.y0 = y0;
  m.z.resize(static_cast<std::size_t>(nx) * ny);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) m.z[i + std::size_t(nx) * j] = f(x0 + i * d, y0 + j * d);
  return m;
}

inline std::shared_ptr<const Terrain> make_terrain(HeightMap map, double spacing, double band) {
  return std::make_shared<Terrain>(build_terrain(std::move(map), {spacing, band}));
}

/// A plane descending along +x at `slope_deg` through z = 0 at x = 0: z = -tan(slope) x, over
/// [x0, x1] x [y0, y1] in pixels of d.
inline HeightMap inclined_map(double slope_deg, double x0, double x1, double y0, double y1,
                              double d) {
  const double s = std::tan(slope_deg * M_PI / 180.0);
  return height_map(static_cast<int>(std::lround((x1 - x0) / d)) + 1,
                    static_cast<int>(std::lround((y1 - y0) / d)) + 1, d, x0, y0,
                    [s](double x, double) { return -s * x; });
}

/// Writes an ESRI ASCII grid of ncols x nrows pixels of `cell` m whose pixel centres lie at
/// (x0 + c cell, y0 + (nrows - 1 - r) cell) (row 0 is the northern edge), heights f(x, y);
/// the pixel (nodata_col, nodata_row) holds the NoData value -9999.
inline void write_ascii_grid(const std::string& path, int ncols, int nrows, double cell, double x0,
                             double y0, const std::function<double(double, double)>& f,
                             int nodata_col = -1, int nodata_row = -1) {
  std::ofstream out(path);
  out << fmt::format(
      "ncols {}\nnrows {}\nxllcenter {}\nyllcenter {}\ncellsize {}\n"
      "NODATA_value -9999\n",
      ncols, nrows, x0, y0, cell);
  for (int r = 0; r < nrows; ++r) {
    for (int c = 0; c < ncols; ++c) {
      const double v = (c == nodata_col && r == nodata_row)
                           ? -9999.0
                           : f(x0 + c * cell, y0 + (nrows - 1 - r) * cell);
      out << fmt::format("{:.12g}{}", v, c + 1 < ncols ? " " : "\n");
    }
  }
}

}  // namespace etdem::test
