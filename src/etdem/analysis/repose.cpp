#include "etdem/analysis/repose.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace etdem {

ReposeResult repose_angle(std::span<const Vec3> positions, std::span<const double> top_offsets,
                          const Vec3& lo, const Vec3& hi, const ReposeSettings& st) {
  if (positions.size() != top_offsets.size())
    throw std::invalid_argument("repose_angle: positions and top_offsets differ in length");
  std::vector<Vec3> tops(positions.size());
  for (std::size_t k = 0; k < positions.size(); ++k)
    tops[k] = positions[k] + Vec3(0, 0, top_offsets[k]);
  return repose_angle_of_nodes(tops, lo, hi, st);
}

ReposeResult repose_angle_of_nodes(std::span<const Vec3> nodes, const Vec3& lo, const Vec3& hi,
                                   const ReposeSettings& st) {
  if (!(hi.x() > lo.x() && hi.y() > lo.y()))
    throw std::invalid_argument("repose_angle: empty container floor");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  ReposeResult r;
  r.long_axis = (hi.y() - lo.y()) > (hi.x() - lo.x()) ? 1 : 0;
  const int la = r.long_axis, sa = 1 - la;
  const int nl = st.long_cells, ns = st.short_cells;
  const double wl = (hi[la] - lo[la]) / nl, ws = (hi[sa] - lo[sa]) / ns;
  r.heights.assign(ns, std::vector<double>(nl, nan));
  for (const Vec3& p : nodes) {
    if (!(p[la] >= lo[la] && p[la] <= hi[la] && p[sa] >= lo[sa] && p[sa] <= hi[sa])) continue;
    const int cl = std::min(nl - 1, static_cast<int>((p[la] - lo[la]) / wl));
    const int cs = std::min(ns - 1, static_cast<int>((p[sa] - lo[sa]) / ws));
    double& h = r.heights[cs][cl];
    if (std::isnan(h) || p.z() > h) h = p.z();
  }
  const double centre = 0.5 * (lo[la] + hi[la]);
  for (int c = 0; c < nl; ++c) r.cell_centres.push_back(lo[la] + (c + 0.5) * wl - centre);
  r.min = std::numeric_limits<double>::infinity();
  r.max = -std::numeric_limits<double>::infinity();
  double sum = 0.0;
  for (int row = 0; row < ns; ++row) {
    // Least squares z = a + b s over the non-empty cells, s relative to the floor's centre.
    double n = 0, sx = 0, sz = 0, sxx = 0, sxz = 0;
    for (int c = 0; c < nl; ++c) {
      const double z = r.heights[row][c];
      if (std::isnan(z)) continue;
      const double s = lo[la] + (c + 0.5) * wl - centre;
      n += 1;
      sx += s;
      sz += z;
      sxx += s * s;
      sxz += s * z;
    }
    r.points.push_back(static_cast<int>(n));
    const double den = n * sxx - sx * sx;
    if (n < st.min_points || !(den > 0.0)) {
      r.slopes.push_back(nan);
      r.intercepts.push_back(nan);
      r.angles.push_back(nan);
      continue;
    }
    const double slope = (n * sxz - sx * sz) / den;
    const double angle = std::atan(std::abs(slope)) * 180.0 / M_PI;
    r.slopes.push_back(slope);
    r.intercepts.push_back((sz - slope * sx) / n);
    r.angles.push_back(angle);
    r.min = std::min(r.min, angle);
    r.max = std::max(r.max, angle);
    sum += angle;
    ++r.rows_used;
  }
  if (r.rows_used == 0) {
    r.mean = r.spread = r.min = r.max = nan;
    return r;
  }
  r.mean = sum / r.rows_used;
  r.spread = 0.5 * ((r.max - r.mean) + (r.mean - r.min));
  return r;
}

FloorMotion floor_motion(std::span<const Vec3> positions, std::span<const Vec3> velocities,
                         const Vec3& container_min, const Vec3& container_max) {
  if (positions.size() != velocities.size())
    throw std::invalid_argument("floor_motion: positions and velocities differ in length");
  FloorMotion m;
  double sum = 0.0;
  for (std::size_t k = 0; k < positions.size(); ++k) {
    const Vec3& p = positions[k];
    if (!(p.x() >= container_min.x() && p.x() <= container_max.x() && p.y() >= container_min.y() &&
          p.y() <= container_max.y()))
      continue;
    const double v = velocities[k].norm();
    ++m.grains;
    sum += v;
    m.max_speed = std::max(m.max_speed, v);
  }
  if (m.grains > 0) m.mean_speed = sum / static_cast<double>(m.grains);
  return m;
}

}  // namespace etdem
