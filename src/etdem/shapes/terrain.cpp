#include "etdem/shapes/terrain.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "etdem/core/closest_point_triangle.hpp"

namespace etdem {

int HeightMap::cell_x(double x) const {
  const double f = std::floor((x - x0) / dx);
  return static_cast<int>(std::clamp(f, 0.0, static_cast<double>(nx - 2)));
}

int HeightMap::cell_y(double y) const {
  const double f = std::floor((y - y0) / dy);
  return static_cast<int>(std::clamp(f, 0.0, static_cast<double>(ny - 2)));
}

double HeightMap::height(double x, double y) const {
  const int i = cell_x(x), j = cell_y(y);
  const double u = std::clamp((x - (x0 + i * dx)) / dx, 0.0, 1.0);
  const double v = std::clamp((y - (y0 + j * dy)) / dy, 0.0, 1.0);
  const double za = at(i, j), zb = at(i + 1, j), zc = at(i + 1, j + 1), zd = at(i, j + 1);
  // Triangles (a, b, c) below the diagonal a-c (u >= v) and (a, c, d) above it.
  return u >= v ? za + u * (zb - za) + v * (zc - zb) : za + v * (zd - za) + u * (zc - zd);
}

HeightMap HeightMap::extended(int px, int py) const {
  HeightMap e;
  e.nx = nx + 2 * px;
  e.ny = ny + 2 * py;
  e.dx = dx;
  e.dy = dy;
  e.x0 = x0 - px * dx;
  e.y0 = y0 - py * dy;
  e.z.resize(static_cast<std::size_t>(e.nx) * e.ny);
  for (int j = 0; j < e.ny; ++j)
    for (int i = 0; i < e.nx; ++i)
      e.z[static_cast<std::size_t>(i) + e.nx * std::size_t(j)] =
          at(std::clamp(i - px, 0, nx - 1), std::clamp(j - py, 0, ny - 1));
  return e;
}

Vec3 HeightMap::normal(double x, double y) const {
  const int i = cell_x(x), j = cell_y(y);
  const double u = (x - (x0 + i * dx)) / dx, v = (y - (y0 + j * dy)) / dy;
  const double za = at(i, j), zb = at(i + 1, j), zc = at(i + 1, j + 1), zd = at(i, j + 1);
  const double sx = u >= v ? (zb - za) / dx : (zc - zd) / dx;
  const double sy = u >= v ? (zc - zb) / dy : (zd - za) / dy;
  return Vec3(-sx, -sy, 1.0).normalized();
}

double HeightMap::distance(const Vec3& p, int i0, int i1, int j0, int j1, double best,
                           Vec3& closest) const {
  i0 = std::max(i0, 0), j0 = std::max(j0, 0);
  i1 = std::min(i1, nx - 2), j1 = std::min(j1, ny - 2);
  double best2 = best * best;
  auto outside = [](double q, double a, double b) { return q < a ? a - q : q > b ? q - b : 0.0; };
  for (int j = j0; j <= j1; ++j) {
    const double ya = y0 + j * dy;
    const double ey = outside(p.y(), ya, ya + dy);
    if (ey * ey >= best2) continue;
    for (int i = i0; i <= i1; ++i) {
      const double xa = x0 + i * dx;
      const double ex = outside(p.x(), xa, xa + dx);
      if (ex * ex + ey * ey >= best2) continue;
      const double za = at(i, j), zb = at(i + 1, j), zc = at(i + 1, j + 1), zd = at(i, j + 1);
      const double ez = outside(p.z(), std::min({za, zb, zc, zd}), std::max({za, zb, zc, zd}));
      if (ex * ex + ey * ey + ez * ez >= best2) continue;  // the cell's box is farther
      const Vec3 a(xa, ya, za), b(xa + dx, ya, zb), c(xa + dx, ya + dy, zc), d(xa, ya + dy, zd);
      TriangleFeature f;
      for (const Vec3& q :
           {closest_point_triangle(p, a, b, c, f), closest_point_triangle(p, a, c, d, f)}) {
        const double d2 = (p - q).squaredNorm();
        if (d2 < best2) best2 = d2, closest = q;
      }
    }
  }
  return std::sqrt(best2);
}

namespace {

/// The eight grid nodes around p and their trilinear weights, column by column (two
/// consecutive nodes each); a node below its column's stored run reads -stored, one above it
/// +stored, with an upward gradient (the gradient of a height field's distance far below or
/// above it): `node` is then null and `sign` says which. `inside` is false for a NaN point.
struct Stencil {
  bool inside = false;
  double w[8];
  const TerrainNode* node[8];
  double sign[8];
};

Stencil stencil(const Terrain& t, const Vec3& p) {
  Stencil s;
  // Beyond the grid horizontally: its nearest column (the continued surface, terrain.hpp).
  const double fx = std::clamp((p.x() - t.origin.x()) / t.h, 0.0, t.gx - 1.0);
  const double fy = std::clamp((p.y() - t.origin.y()) / t.h, 0.0, t.gy - 1.0);
  const double fz = (p.z() - t.origin.z()) / t.h;
  if (std::isnan(fx) || std::isnan(fy) || std::isnan(fz)) return s;
  s.inside = true;
  const int i = std::min(static_cast<int>(fx), t.gx - 2);
  const int j = std::min(static_cast<int>(fy), t.gy - 2);
  const double kz = std::floor(fz);
  const double tx = fx - i, ty = fy - j, tz = fz - kz;
  // Below or above every stored run: no lookup needed (clamped well inside int range).
  const long k = static_cast<long>(std::clamp(kz, -4.0e9, 4.0e9));
  for (int c = 0; c < 4; ++c) {
    const int ci = i + (c & 1), cj = j + (c >> 1);
    const double wxy = ((c & 1) ? tx : 1.0 - tx) * ((c >> 1) ? ty : 1.0 - ty);
    const TerrainColumn& col = t.columns[static_cast<std::size_t>(ci) + t.gx * std::size_t(cj)];
    const long rel = k - col.k0;
    const TerrainNode* run = t.nodes.data() + col.start;
    for (int dk = 0; dk < 2; ++dk) {
      const int e = 2 * c + dk;
      s.w[e] = wxy * (dk ? tz : 1.0 - tz);
      const long r = rel + dk;
      const bool stored = r >= 0 && r < col.count;
      s.node[e] = stored ? run + r : nullptr;
      s.sign[e] = r < 0 ? -1.0 : 1.0;
    }
  }
  return s;
}

/// The stencil's blend of the values (the same sums, in the same order, as the gradient's).
double blend_value(const Terrain& t, const Stencil& s) {
  if (!s.inside) return t.stored;  // a NaN point
  double value = 0.0;
  for (int e = 0; e < 8; ++e)
    value += s.node[e] ? s.w[e] * s.node[e]->phi : s.w[e] * (s.sign[e] * t.stored);
  return value;
}

/// The stencil's blend of the gradients (zero for a NaN point).
Vec3 blend_gradient(const Stencil& s) {
  if (!s.inside) return Vec3::Zero();
  double gx = 0.0, gy = 0.0, gz = 0.0;
  for (int e = 0; e < 8; ++e) {
    const double w = s.w[e];
    if (!s.node[e]) {
      gz += w * 32767.0;
      continue;
    }
    const TerrainNode& n = *s.node[e];
    gx += w * n.grad[0];
    gy += w * n.grad[1];
    gz += w * n.grad[2];
  }
  return kUnitScale * Vec3(gx, gy, gz);
}

}  // namespace

double Terrain::value(const Vec3& p) const {
  return blend_value(*this, stencil(*this, p));
}

double Terrain::value_gradient(const Vec3& p, Vec3& gradient) const {
  const Stencil s = stencil(*this, p);
  gradient = blend_gradient(s);
  return blend_value(*this, s);
}

bool Terrain::value_below(const Vec3& p, double limit, double& value, Vec3& gradient) const {
  const Stencil s = stencil(*this, p);
  value = blend_value(*this, s);
  if (!(value < limit)) return false;
  gradient = blend_gradient(s);
  return true;
}

std::size_t Terrain::memory_bytes() const {
  // The node array is reserved at the build's upper estimate, but pages past its size are never
  // touched, so they are not resident: counted by size.
  return nodes.size() * sizeof(TerrainNode) + columns.size() * sizeof(TerrainColumn) +
         map.z.size() * sizeof(double);
}

}  // namespace etdem
