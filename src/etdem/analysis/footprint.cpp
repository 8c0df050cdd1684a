#include "etdem/analysis/footprint.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace etdem {
namespace {

double cross(const Vec2& o, const Vec2& a, const Vec2& b) {
  return (a.x() - o.x()) * (b.y() - o.y()) - (a.y() - o.y()) * (b.x() - o.x());
}

}  // namespace

std::vector<Vec2> convex_hull_2d(std::vector<Vec2> p) {
  std::sort(p.begin(), p.end(), [](const Vec2& a, const Vec2& b) {
    return a.x() < b.x() || (a.x() == b.x() && a.y() < b.y());
  });
  p.erase(std::unique(p.begin(), p.end()), p.end());
  if (p.size() < 3) return p;
  std::vector<Vec2> h(2 * p.size());
  std::size_t k = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {  // lower chain
    while (k >= 2 && cross(h[k - 2], h[k - 1], p[i]) <= 0.0) --k;
    h[k++] = p[i];
  }
  for (std::size_t i = p.size() - 1, t = k + 1; i-- > 0;) {  // upper chain
    while (k >= t && cross(h[k - 2], h[k - 1], p[i]) <= 0.0) --k;
    h[k++] = p[i];
  }
  h.resize(k - 1);  // the last point is the first
  return h;
}

bool inside_convex(std::span<const Vec2> hull, const Vec2& q) {
  if (hull.size() < 3) return false;
  for (std::size_t i = 0; i < hull.size(); ++i)
    if (cross(hull[i], hull[(i + 1) % hull.size()], q) < 0.0) return false;
  return true;
}

GrainFootprint make_footprint(std::span<const Vec3> nodes,
                              std::span<const std::pair<Vec3, double>> spheres, const Vec3& centre,
                              double weight) {
  GrainFootprint g;
  g.centre = centre;
  g.weight = weight;
  g.top = -std::numeric_limits<double>::infinity();
  std::vector<Vec2> flat;
  flat.reserve(nodes.size());
  for (const Vec3& n : nodes) {
    flat.emplace_back(n.x(), n.y());
    g.top = std::max(g.top, n.z());
  }
  g.hull = convex_hull_2d(std::move(flat));
  for (const auto& [c, r] : spheres) {
    g.discs.emplace_back(Vec2(c.x(), c.y()), r);
    g.top = std::max(g.top, c.z() + r);
  }
  if (!std::isfinite(g.top)) g.top = centre.z();
  return g;
}

DepositMap deposit_map(std::span<const GrainFootprint> grains, double cell) {
  if (!(cell > 0.0) || !std::isfinite(cell))
    throw std::invalid_argument("deposit map: the cell size must be > 0");
  if (grains.empty()) throw std::invalid_argument("deposit map: no grains");
  Vec2 lo(std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity());
  Vec2 hi = -lo;
  auto extend = [&](const Vec2& p, double r) {
    lo = lo.cwiseMin(p - Vec2(r, r));
    hi = hi.cwiseMax(p + Vec2(r, r));
  };
  for (const GrainFootprint& g : grains) {
    for (const Vec2& p : g.hull) extend(p, 0.0);
    for (const auto& [c, r] : g.discs) extend(c, r);
    extend(g.centre.head<2>(), 0.0);
  }
  DepositMap m;
  m.cell = cell;
  m.lo = Vec2(std::floor(lo.x() / cell) * cell, std::floor(lo.y() / cell) * cell);
  const double nx = std::floor((hi.x() - m.lo.x()) / cell) + 1.0;
  const double ny = std::floor((hi.y() - m.lo.y()) / cell) + 1.0;
  if (!(nx * ny <= static_cast<double>(kMaxDepositCells)))
    throw std::invalid_argument("deposit map: " + std::to_string(static_cast<long>(nx)) + " x " +
                                std::to_string(static_cast<long>(ny)) + " cells exceed " +
                                std::to_string(kMaxDepositCells) + "; use a larger cell");
  m.nx = static_cast<int>(nx);
  m.ny = static_cast<int>(ny);
  m.top.assign(static_cast<std::size_t>(m.nx) * m.ny, std::numeric_limits<double>::quiet_NaN());
  m.grains.assign(m.top.size(), 0);
  // Each grain marks the cells of its own bounding box whose centres it covers.
  for (const GrainFootprint& g : grains) {
    Vec2 glo(std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity());
    Vec2 ghi = -glo;
    for (const Vec2& p : g.hull) glo = glo.cwiseMin(p), ghi = ghi.cwiseMax(p);
    for (const auto& [c, r] : g.discs)
      glo = glo.cwiseMin(c - Vec2(r, r)), ghi = ghi.cwiseMax(c + Vec2(r, r));
    if (!(glo.x() <= ghi.x())) continue;  // a grain without nodes or spheres covers nothing
    const int i0 = std::max(0, static_cast<int>(std::floor((glo.x() - m.lo.x()) / cell - 0.5)));
    const int j0 = std::max(0, static_cast<int>(std::floor((glo.y() - m.lo.y()) / cell - 0.5)));
    const int i1 = std::min(m.nx - 1, static_cast<int>(std::ceil((ghi.x() - m.lo.x()) / cell)));
    const int j1 = std::min(m.ny - 1, static_cast<int>(std::ceil((ghi.y() - m.lo.y()) / cell)));
    for (int j = j0; j <= j1; ++j)
      for (int i = i0; i <= i1; ++i) {
        const Vec2 c = m.centre(i, j);
        bool in = inside_convex(g.hull, c);
        for (std::size_t d = 0; d < g.discs.size() && !in; ++d)
          in = (c - g.discs[d].first).squaredNorm() <= g.discs[d].second * g.discs[d].second;
        if (!in) continue;
        const int k = m.index(i, j);
        if (m.grains[k]++ == 0) ++m.covered;
        if (!(m.top[k] >= g.top)) m.top[k] = g.top;
      }
  }
  return m;
}

}  // namespace etdem
