#include "etdem/analysis/runout.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "etdem/analysis/mound.hpp"

namespace etdem {

RunoutResult analyze_runout(std::span<const GrainFootprint> grains, const RunoutSettings& st) {
  if (grains.empty()) throw std::invalid_argument("runout: no grains");
  if (!st.direction.allFinite() || !(st.direction.norm() > 0.0))
    throw std::invalid_argument("runout: the direction must be a non-zero horizontal vector");
  if (!(st.fraction > 0.0 && st.fraction <= 1.0))
    throw std::invalid_argument("runout: the fraction must be in (0, 1]");
  RunoutResult r;
  r.grains = static_cast<long>(grains.size());
  const Vec2 d = st.direction.normalized();
  const Vec2 side(-d.y(), d.x());
  r.direction = d;
  const double inf = std::numeric_limits<double>::infinity();
  double front = -inf, rear = inf, left = -inf, right = inf;
  auto extend = [&](const Vec2& p, double radius) {
    const Vec2 q = p - st.origin;
    front = std::max(front, q.dot(d) + radius);
    rear = std::min(rear, q.dot(d) - radius);
    left = std::max(left, q.dot(side) + radius);
    right = std::min(right, q.dot(side) - radius);
  };
  std::vector<double> along, weights;
  for (const GrainFootprint& g : grains) {
    for (const Vec2& p : g.hull) extend(p, 0.0);
    for (const auto& [c, radius] : g.discs) extend(c, radius);
    const Vec2 c = g.centre.head<2>();
    if (g.hull.empty() && g.discs.empty()) extend(c, 0.0);
    along.push_back((c - st.origin).dot(d));
    weights.push_back(g.weight);
  }
  r.runout = front;
  r.rear = rear;
  r.width = left - right;
  r.runout_fraction = weighted_quantile(along, weights, st.fraction);

  r.map = deposit_map(grains, st.cell);
  r.area = r.map.area();
  std::vector<double> bearings;
  for (int j = 0; j < r.map.ny; ++j)
    for (int i = 0; i < r.map.nx; ++i) {
      if (r.map.grains[r.map.index(i, j)] == 0) continue;
      const Vec2 q = r.map.centre(i, j) - st.origin;
      if (!(q.dot(d) > 0.0)) continue;
      bearings.push_back(std::atan2(q.dot(side), q.dot(d)) * 180.0 / M_PI);
    }
  r.cells_ahead = static_cast<long>(bearings.size());
  if (bearings.empty()) {
    r.fan_angle = r.fan_angle_full = r.fan_left = r.fan_right =
        std::numeric_limits<double>::quiet_NaN();
    return r;
  }
  const std::vector<double> ones(bearings.size(), 1.0);
  r.fan_right = weighted_quantile(bearings, ones, 0.5 * (1.0 - st.fraction));
  r.fan_left = weighted_quantile(bearings, ones, 0.5 * (1.0 + st.fraction));
  r.fan_angle = r.fan_left - r.fan_right;
  const auto [lo, hi] = std::minmax_element(bearings.begin(), bearings.end());
  r.fan_angle_full = *hi - *lo;
  return r;
}

}  // namespace etdem
