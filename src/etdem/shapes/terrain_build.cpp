#include "etdem/shapes/terrain_build.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "etdem/core/closest_point_triangle.hpp"

namespace etdem {
namespace {

/// The grid of a terrain before its nodes: spacing, stored half-width, origin, columns.
struct Grid {
  double h = 0.0, stored = 0.0;
  Vec3 origin{0, 0, 0};
  int gx = 0, gy = 0;
  double zmin = 0.0, zmax = 0.0;
};

Grid grid_of(const HeightMap& map, const TerrainBuildOptions& o) {
  if (map.nx < 2 || map.ny < 2 || static_cast<std::size_t>(map.nx) * map.ny != map.z.size())
    throw std::invalid_argument("a height map needs at least 2 x 2 nodes");
  if (!(map.dx > 0.0 && map.dy > 0.0 && std::isfinite(map.dx) && std::isfinite(map.dy)))
    throw std::invalid_argument("the height map's pixel size must be finite and > 0");
  if (!(o.spacing > 0.0 && std::isfinite(o.spacing)))
    throw std::invalid_argument("spacing must be finite and > 0");
  if (!(o.band > 0.0 && std::isfinite(o.band)))
    throw std::invalid_argument("band must be finite and > 0");
  Grid g;
  g.h = o.spacing;
  // A point within the band reads eight nodes at most sqrt(3) h farther from the surface.
  g.stored = o.band + 2.0 * o.spacing;
  const auto [lo, hi] = std::minmax_element(map.z.begin(), map.z.end());
  g.zmin = *lo;
  g.zmax = *hi;
  // Columns within the map (whose rim keeps them a band clear of the raster: with_rim): a
  // column beyond the map's last node would see the map end.
  const double cols_x = std::floor((map.x_max() - map.x0) / g.h + 1e-9) + 1.0;
  const double cols_y = std::floor((map.y_max() - map.y0) / g.h + 1e-9) + 1.0;
  if (cols_x * cols_y > 4e9 || cols_x > 2e9 || cols_y > 2e9)
    throw std::invalid_argument(
        fmt::format("spacing {} m makes {:.3g} x {:.3g} grid columns over the map, at least "
                    "{:.3g} GB",
                    g.h, cols_x, cols_y, cols_x * cols_y * sizeof(TerrainColumn) / 1e9));
  g.gx = std::max(2, static_cast<int>(cols_x));
  g.gy = std::max(2, static_cast<int>(cols_y));
  g.origin = Vec3(map.x0, map.y0, std::floor((g.zmin - g.stored) / g.h) * g.h - g.h);
  return g;
}

/// The map the grid is built over: the raster and a rim of its edge heights continued, at least
/// `stored` wide (terrain.hpp: the rim's outer columns then hold the distance of every point
/// farther out). The checks of grid_of run on the raster itself first.
HeightMap with_rim(const HeightMap& map, const TerrainBuildOptions& o) {
  const Grid g = grid_of(map, o);
  const double px = std::ceil(g.stored / map.dx) + 1.0, py = std::ceil(g.stored / map.dy) + 1.0;
  const double nodes = (map.nx + 2.0 * px) * (map.ny + 2.0 * py);
  if (nodes * sizeof(double) > double(o.max_bytes) || px > 1e9 || py > 1e9)
    throw std::invalid_argument(fmt::format(
        "band {} m is {:.3g} x {:.3g} pixels wide: the raster with its rim needs {:.3g} GB, more "
        "than the {:.3g} GB allowed",
        o.band, px, py, nodes * sizeof(double) / 1e9, double(o.max_bytes) / 1e9));
  return map.extended(static_cast<int>(px), static_cast<int>(py));
}

/// Per column: the lowest and highest height of the map within `stored` horizontally (over the
/// square of map nodes around it, which holds every triangle that comes that near).
void window_ranges(const HeightMap& map, const Grid& g, std::vector<double>& lo,
                   std::vector<double>& hi) {
  auto range = [](double q, double q0, double d, double r, int n, int& a, int& b) {
    a = static_cast<int>(std::clamp(std::floor((q - r - q0) / d), 0.0, n - 1.0));
    b = static_cast<int>(std::clamp(std::ceil((q + r - q0) / d), 0.0, n - 1.0));
  };
  // Along x for every map row, then along y for every grid column.
  std::vector<double> row_lo(static_cast<std::size_t>(map.ny) * g.gx);
  std::vector<double> row_hi(row_lo.size());
#pragma omp parallel for schedule(static)
  for (int jm = 0; jm < map.ny; ++jm)
    for (int i = 0; i < g.gx; ++i) {
      int a, b;
      range(g.origin.x() + i * g.h, map.x0, map.dx, g.stored, map.nx, a, b);
      double l = map.at(a, jm), u = l;
      for (int q = a + 1; q <= b; ++q)
        l = std::min(l, map.at(q, jm)), u = std::max(u, map.at(q, jm));
      row_lo[static_cast<std::size_t>(jm) * g.gx + i] = l;
      row_hi[static_cast<std::size_t>(jm) * g.gx + i] = u;
    }
  lo.assign(static_cast<std::size_t>(g.gx) * g.gy, 0.0);
  hi.assign(lo.size(), 0.0);
#pragma omp parallel for schedule(static)
  for (int j = 0; j < g.gy; ++j) {
    int a, b;
    range(g.origin.y() + j * g.h, map.y0, map.dy, g.stored, map.ny, a, b);
    for (int i = 0; i < g.gx; ++i) {
      double l = row_lo[static_cast<std::size_t>(a) * g.gx + i];
      double u = row_hi[static_cast<std::size_t>(a) * g.gx + i];
      for (int q = a + 1; q <= b; ++q) {
        l = std::min(l, row_lo[static_cast<std::size_t>(q) * g.gx + i]);
        u = std::max(u, row_hi[static_cast<std::size_t>(q) * g.gx + i]);
      }
      lo[static_cast<std::size_t>(j) * g.gx + i] = l;
      hi[static_cast<std::size_t>(j) * g.gx + i] = u;
    }
  }
}

/// Candidate k range of a column: from `stored` below its lowest nearby height to `stored`
/// above its highest (every node outside it is farther than `stored` from the surface).
void candidate_range(const Grid& g, double lo, double hi, int& ka, int& kb) {
  ka = std::max(0, static_cast<int>(std::floor((lo - g.stored - g.origin.z()) / g.h)));
  kb = static_cast<int>(std::ceil((hi + g.stored - g.origin.z()) / g.h));
}

std::size_t bytes_for(const HeightMap& map, const Grid& g, double nodes) {
  return static_cast<std::size_t>(nodes * sizeof(TerrainNode) +
                                  double(g.gx) * g.gy * sizeof(TerrainColumn) +
                                  double(map.z.size()) * sizeof(double));
}

/// The height range of every raster cell and of every block of kBlock x kBlock cells, rounded
/// outwards to float: the lower bounds that let the search skip a block or a cell whose box is
/// farther than the best distance so far without looking at its triangles.
struct CellRanges {
  static constexpr int kBlock = 4;
  int cx = 0, cy = 0, bx = 0, by = 0;  // cells and blocks along x and y
  std::vector<float> lo, hi;           // per cell (i + cx j)
  std::vector<float> blo, bhi;         // per block
  std::vector<float> bsin;             // per block: sine of its steepest triangle's slope
  explicit CellRanges(const HeightMap& m)
      : cx(m.nx - 1), cy(m.ny - 1), bx((cx + kBlock - 1) / kBlock), by((cy + kBlock - 1) / kBlock) {
    lo.resize(static_cast<std::size_t>(cx) * cy);
    hi.resize(lo.size());
    blo.assign(static_cast<std::size_t>(bx) * by, std::numeric_limits<float>::infinity());
    bhi.assign(blo.size(), -std::numeric_limits<float>::infinity());
    bsin.assign(blo.size(), 0.0f);
    for (int j = 0; j < cy; ++j)
      for (int i = 0; i < cx; ++i) {
        const double a = m.at(i, j), b = m.at(i + 1, j), c = m.at(i + 1, j + 1), d = m.at(i, j + 1);
        const std::size_t k = i + static_cast<std::size_t>(cx) * j;
        lo[k] = std::nextafter(static_cast<float>(std::min({a, b, c, d})), -INFINITY);
        hi[k] = std::nextafter(static_cast<float>(std::max({a, b, c, d})), INFINITY);
        const std::size_t q = i / kBlock + static_cast<std::size_t>(bx) * (j / kBlock);
        blo[q] = std::min(blo[q], lo[k]);
        bhi[q] = std::max(bhi[q], hi[k]);
        const double s2 = std::max(std::pow((b - a) / m.dx, 2) + std::pow((c - b) / m.dy, 2),
                                   std::pow((c - d) / m.dx, 2) + std::pow((d - a) / m.dy, 2));
        bsin[q] = std::max(
            bsin[q], std::nextafter(static_cast<float>(std::sqrt(s2 / (1.0 + s2))), INFINITY));
      }
  }
};

double outside(double q, double a, double b) {
  return q < a ? a - q : q > b ? q - b : 0.0;
}

/// The cells the nodes of one column can find their closest point in, nearest first
/// horizontally; built once per column. The direction from the closest point to a node lies in
/// the surface's normal cone there, whose tilt from the vertical is at most that of the steepest
/// triangle around it: the closest point lies within best * sin(steepest slope) of the node
/// horizontally (`sin_max` over the blocks within the band around the column; 1 near the map's
/// edges, where the cone opens sideways).
struct ColumnCells {
  struct Cell {
    double h2;  // m^2, squared horizontal distance from the column to the cell
    int k;      // cell index i + cx j
    int i, j;
  };
  std::vector<Cell> cells;
  double sin_max = 1.0;
  Vec3 below{0, 0, 0};   // the surface point under the column (clamped onto the map)
  Vec3 normal{0, 0, 1};  // the surface's normal there

  void build(const HeightMap& m, const CellRanges& r, double x, double y, double stored) {
    cells.clear();
    sin_max = 1.0;
    below = Vec3(std::clamp(x, m.x0, m.x_max()), std::clamp(y, m.y0, m.y_max()), m.height(x, y));
    normal = m.normal(x, y);
    const double bw = CellRanges::kBlock * m.dx, bh = CellRanges::kBlock * m.dy;
    if (x - stored > m.x0 && x + stored < m.x_max() && y - stored > m.y0 &&
        y + stored < m.y_max()) {
      float s = 0.0f;
      const int bi0 = static_cast<int>((x - stored - m.x0) / bw);
      const int bi1 = std::min(r.bx - 1, static_cast<int>((x + stored - m.x0) / bw));
      const int bj0 = static_cast<int>((y - stored - m.y0) / bh);
      const int bj1 = std::min(r.by - 1, static_cast<int>((y + stored - m.y0) / bh));
      for (int bj = bj0; bj <= bj1; ++bj)
        for (int bi = bi0; bi <= bi1; ++bi)
          s = std::max(s, r.bsin[bi + static_cast<std::size_t>(r.bx) * bj]);
      sin_max = std::min(1.0, 1e-9 + static_cast<double>(s));
    }
    const double reach = stored * sin_max;
    const int i0 = std::max(0, static_cast<int>(std::floor((x - reach - m.x0) / m.dx)));
    const int i1 = std::min(r.cx - 1, static_cast<int>(std::floor((x + reach - m.x0) / m.dx)));
    const int j0 = std::max(0, static_cast<int>(std::floor((y - reach - m.y0) / m.dy)));
    const int j1 = std::min(r.cy - 1, static_cast<int>(std::floor((y + reach - m.y0) / m.dy)));
    for (int j = j0; j <= j1; ++j) {
      const double ey = outside(y, m.y0 + j * m.dy, m.y0 + (j + 1) * m.dy);
      for (int i = i0; i <= i1; ++i) {
        const double ex = outside(x, m.x0 + i * m.dx, m.x0 + (i + 1) * m.dx);
        const double h2 = ex * ex + ey * ey;
        if (h2 <= reach * reach) cells.push_back({h2, i + r.cx * j, i, j});
      }
    }
    std::sort(cells.begin(), cells.end(), [](const Cell& a, const Cell& b) {
      return a.h2 < b.h2 || (a.h2 == b.h2 && a.k < b.k);
    });
  }

  /// The distance of p (on this column) to the map's triangles when below `best` (closest point
  /// in `closest`), else `best`: cells horizontally beyond best * sin_max end the search, cells
  /// whose box is farther are skipped, and a triangle only when its plane is.
  double search(const HeightMap& m, const CellRanges& r, const Vec3& p, double best,
                Vec3& closest) const {
    double best2 = best * best;
    double reach2 = best2 * sin_max * sin_max;
    for (const Cell& c : cells) {
      if (c.h2 > reach2) break;
      const double ez = outside(p.z(), r.lo[c.k], r.hi[c.k]);
      if (c.h2 + ez * ez >= best2) continue;
      const double x = m.x0 + c.i * m.dx, y = m.y0 + c.j * m.dy;
      const double za = m.at(c.i, c.j), zb = m.at(c.i + 1, c.j), zc = m.at(c.i + 1, c.j + 1),
                   zd = m.at(c.i, c.j + 1);
      const Vec3 a(x, y, za), cc(x + m.dx, y + m.dy, zc);
      const double u = p.x() - x, v = p.y() - y;
      for (int tri = 0; tri < 2; ++tri) {
        const double sx = tri == 0 ? (zb - za) / m.dx : (zc - zd) / m.dx;
        const double sy = tri == 0 ? (zc - zb) / m.dy : (zd - za) / m.dy;
        const double above = p.z() - (za + sx * u + sy * v);
        if (above * above >= best2 * (1.0 + sx * sx + sy * sy)) continue;
        TriangleFeature f;
        const Vec3 t = tri == 0 ? closest_point_triangle(p, a, Vec3(x + m.dx, y, zb), cc, f)
                                : closest_point_triangle(p, a, cc, Vec3(x, y + m.dy, zd), f);
        const double d2 = (p - t).squaredNorm();
        if (d2 < best2) {
          best2 = d2, closest = t;
          reach2 = best2 * sin_max * sin_max;
        }
      }
    }
    return std::sqrt(best2);
  }
};

/// The exact signed distance and gradient at p, clamped to +-stored.
TerrainNode node_at(const HeightMap& map, const CellRanges& ranges, const ColumnCells& column,
                    const Grid& g, const Vec3& p) {
  // The surface point straight below or above (clamped onto the map) bounds the distance.
  Vec3 closest = column.below;
  const double H = closest.z();
  double start = std::min((p - closest).norm(), g.stored);
  // A tighter bound first: the cell under the foot of p on the plane of the triangle below it
  // (on a plane, the distance itself), so the search below opens only the cells that can beat it.
  const Vec3& n0 = column.normal;
  const Vec3 foot = p - (p - closest).dot(n0) * n0;
  const int fi = map.cell_x(foot.x()), fj = map.cell_y(foot.y());
  start = map.distance(p, fi, fi, fj, fj, start, closest);
  const double d = column.search(map, ranges, p, start, closest);
  const double sign = p.z() >= H ? 1.0 : -1.0;
  const double gap = (p - closest).norm();
  Vec3 grad = gap > 1e-9 * g.h ? Vec3(sign * (p - closest) / gap) : n0;
  TerrainNode n;
  n.phi = static_cast<float>(sign * std::min(d, g.stored));
  for (int c = 0; c < 3; ++c) n.grad[c] = encode_unit(grad[c]);
  return n;
}

}  // namespace

Terrain build_terrain(HeightMap raster, const TerrainBuildOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  for (double z : raster.z)
    if (!std::isfinite(z)) throw std::invalid_argument("the height map holds a non-finite height");
  const HeightMap map = with_rim(raster, o);
  const Grid g = grid_of(map, o);
  // Refuse before the window arrays (16 bytes a column) or the nodes are allocated.
  const double column_bytes = double(g.gx) * g.gy * (sizeof(TerrainColumn) + 2 * sizeof(double));
  if (column_bytes > double(o.max_bytes))
    throw std::invalid_argument(fmt::format(
        "spacing {} m: {} x {} grid columns need {:.3g} GB, more than the {:.3g} GB allowed", g.h,
        g.gx, g.gy, column_bytes / 1e9, double(o.max_bytes) / 1e9));
  std::vector<double> lo, hi;
  window_ranges(map, g, lo, hi);
  const std::size_t ncol = lo.size();
  std::vector<int> ka(ncol), kb(ncol);
  double candidates = 0.0;
  for (std::size_t c = 0; c < ncol; ++c) {
    candidate_range(g, lo[c], hi[c], ka[c], kb[c]);
    candidates += kb[c] - ka[c] + 1;
  }
  const std::size_t estimate = bytes_for(map, g, candidates);
  if (estimate > o.max_bytes)
    throw std::invalid_argument(fmt::format(
        "spacing {} m and band {} m need up to {:.3g} GB for the terrain's band, more than the "
        "{:.3g} GB allowed (a larger spacing, a thinner band or a crop)",
        g.h, o.band, double(estimate) / 1e9, double(o.max_bytes) / 1e9));
  lo = {};
  hi = {};

  const CellRanges ranges(map);
  Terrain t;
  t.h = g.h;
  t.band = o.band;
  t.stored = g.stored;
  t.origin = g.origin;
  t.gx = g.gx;
  t.gy = g.gy;
  t.columns.resize(ncol);
  // Reserved, not touched: the pages of the estimate that the trimmed runs do not fill are never
  // resident.
  t.nodes.reserve(static_cast<std::size_t>(candidates));
  const float stored = static_cast<float>(g.stored);
  // Rows of columns in blocks: columns in parallel into per-column buffers, appended in order
  // (the result does not depend on the thread count).
  constexpr int kBlockRows = 8;
  std::vector<std::vector<TerrainNode>> buffer(static_cast<std::size_t>(kBlockRows) * g.gx);
  for (int j0 = 0; j0 < g.gy; j0 += kBlockRows) {
    const int rows = std::min(kBlockRows, g.gy - j0);
    const int n = rows * g.gx;
#pragma omp parallel for schedule(dynamic, 64)
    for (int b = 0; b < n; ++b) {
      const int i = b % g.gx, j = j0 + b / g.gx;
      const std::size_t c = static_cast<std::size_t>(j) * g.gx + i;
      thread_local ColumnCells column;
      column.build(map, ranges, g.origin.x() + i * g.h, g.origin.y() + j * g.h, g.stored);
      auto at = [&](int k) {
        return node_at(map, ranges, column, g, g.origin + g.h * Vec3(i, j, k));
      };
      // The signed distance never decreases up a column and is at most the vertical gap: every
      // node within `stored` of the surface point straight below or above is in the band. From
      // the lowest of them, down while still in the band, then up until +stored.
      const double H = map.height(g.origin.x() + i * g.h, g.origin.y() + j * g.h);
      int a = std::clamp(static_cast<int>(std::ceil((H - g.stored - g.origin.z()) / g.h)), ka[c],
                         kb[c]);
      std::vector<TerrainNode>& out = buffer[b];
      out.clear();
      while (a > ka[c]) {
        const TerrainNode node = at(a - 1);
        if (node.phi <= -stored) break;
        out.push_back(node);
        --a;
      }
      std::reverse(out.begin(), out.end());
      for (int k = a + static_cast<int>(out.size()); k <= kb[c]; ++k) {
        const TerrainNode node = at(k);
        if (node.phi >= stored) break;
        out.push_back(node);
      }
      t.columns[c].k0 = a;
      t.columns[c].count = static_cast<std::int32_t>(out.size());
    }
    for (int b = 0; b < n; ++b) {
      const std::size_t c = static_cast<std::size_t>(j0 + b / g.gx) * g.gx + b % g.gx;
      t.columns[c].start = static_cast<std::int64_t>(t.nodes.size());
      t.nodes.insert(t.nodes.end(), buffer[b].begin(), buffer[b].end());
    }
  }
  t.lo = Vec3(raster.x0, raster.y0, g.zmin);
  t.hi = Vec3(raster.x_max(), raster.y_max(), g.zmax);
  for (int c = 0; c < 8; ++c) {
    const Vec3 corner((c & 1) ? t.hi.x() : t.lo.x(), (c & 2) ? t.hi.y() : t.lo.y(),
                      (c & 4) ? t.hi.z() : t.lo.z());
    t.bounding_radius = std::max(t.bounding_radius, corner.norm());
  }
  t.map = std::move(raster);
  t.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return t;
}

}  // namespace etdem
