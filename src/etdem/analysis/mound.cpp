#include "etdem/analysis/mound.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace etdem {

double weighted_quantile(std::span<const double> values, std::span<const double> weights,
                         double fraction) {
  if (values.size() != weights.size())
    throw std::invalid_argument("weighted_quantile: values and weights differ in length");
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return values[a] < values[b] || (values[a] == values[b] && a < b);
  });
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  const double target = fraction * total;
  double sum = 0.0;
  for (const std::size_t k : order) {
    sum += weights[k];
    if (sum >= target * (1.0 - 1e-12)) return values[k];
  }
  return values[order.back()];
}

MoundResult analyze_mound(std::span<const Vec3> nodes, std::span<const Vec3> centres,
                          std::span<const double> weights, double base, const MoundSettings& st) {
  if (centres.empty()) throw std::invalid_argument("mound: no grains");
  if (centres.size() != weights.size())
    throw std::invalid_argument("mound: centres and weights differ in length");
  if (!(st.fraction > 0.0 && st.fraction <= 1.0))
    throw std::invalid_argument("mound: the fraction must be in (0, 1]");
  if (!(st.bin > 0.0) || !std::isfinite(st.bin))
    throw std::invalid_argument("mound: the profile bin must be > 0");
  MoundResult r;
  r.base = base;
  r.grains = static_cast<long>(centres.size());
  double total = 0.0;
  for (std::size_t k = 0; k < centres.size(); ++k) {
    if (!(weights[k] > 0.0)) throw std::invalid_argument("mound: grain weights must be > 0");
    r.axis_x += weights[k] * centres[k].x();
    r.axis_y += weights[k] * centres[k].y();
    total += weights[k];
  }
  r.axis_x /= total;
  r.axis_y /= total;
  auto radius = [&](const Vec3& p) { return std::hypot(p.x() - r.axis_x, p.y() - r.axis_y); };

  std::vector<double> radii(centres.size());
  for (std::size_t k = 0; k < centres.size(); ++k) radii[k] = radius(centres[k]);
  r.spread = weighted_quantile(radii, weights, st.fraction);
  const std::vector<double> ones(centres.size(), 1.0);
  r.spread_count = weighted_quantile(radii, ones, st.fraction);

  r.height = -std::numeric_limits<double>::infinity();
  for (const Vec3& p : nodes) {
    r.height = std::max(r.height, p.z() - base);
    r.reach = std::max(r.reach, radius(p));
  }
  if (nodes.empty()) r.height = std::numeric_limits<double>::quiet_NaN();
  for (double x : radii) r.reach = std::max(r.reach, x);

  const double bins = std::floor(r.reach / st.bin) + 1.0;
  if (!(bins <= static_cast<double>(kMaxMoundBins)))
    throw std::invalid_argument("mound: more than 1e6 profile annuli; use a larger bin");
  r.profile.resize(static_cast<std::size_t>(bins));
  for (std::size_t b = 0; b < r.profile.size(); ++b) {
    r.profile[b].r_inner = static_cast<double>(b) * st.bin;
    r.profile[b].r_outer = static_cast<double>(b + 1) * st.bin;
    r.profile[b].top = std::numeric_limits<double>::quiet_NaN();
  }
  auto bin_of = [&](double x) {
    return std::min(r.profile.size() - 1, static_cast<std::size_t>(x / st.bin));
  };
  for (const Vec3& p : nodes) {
    MoundBin& b = r.profile[bin_of(radius(p))];
    ++b.nodes;
    if (!(b.top >= p.z() - base)) b.top = p.z() - base;
  }
  for (std::size_t k = 0; k < centres.size(); ++k)
    r.profile[bin_of(radii[k])].share += weights[k] / total;
  return r;
}

}  // namespace etdem
