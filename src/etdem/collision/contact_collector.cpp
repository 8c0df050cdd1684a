#include "etdem/collision/contact_collector.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace etdem {

void ContactCollector::emit(Manifold& out, bool normals_apart, bool touching_first, int limit) {
  const int n = size();
  const int room = std::min(limit, Manifold::kMaxPoints) - out.count;
  if (n <= room) {
    for (int k = 0; k < n; ++k) put(out, k);
    return;
  }
  if (room <= 0) return;
  int deepest = 0;
  for (int k = 1; k < n; ++k)
    if (gap_[k] < gap_[deepest]) deepest = k;
  // A reduced manifold (limit below kMaxPoints) samples first the candidates within a band of
  // kReducedBand times the candidates' extent above the deepest (the points that bear), and
  // starts from the one of them farthest from their centroid rather than from the deepest: on a
  // flat face whose nodes are all about as deep, the deepest changes from step to step and so
  // would every point sampled after it, and a wide band spends the few points on the rim's
  // speculative candidates instead of the face (docs/design.md, "Level-set grains").
  const bool reduced = limit < Manifold::kMaxPoints;
  // The candidates sampled first: gap <= near_gap (touching_first: those that touch).
  const bool near_first = touching_first || reduced;
  // normals_apart: points are far from the kept ones also by their normals (see the header),
  // scaled by the candidates' extent, which the band reads too: found once.
  const bool by_normals = normals_apart && with_normals_;
  const double extent_squared = reduced || by_normals ? extent2() : 0.0;
  double near_gap = 0.0;
  int pick = deepest;
  if (reduced) {
    near_gap = gap_[deepest] + kReducedBand * std::sqrt(extent_squared);
    Vec3 c = Vec3::Zero();
    int m = 0;
    for (int k = 0; k < n; ++k)
      if (gap_[k] <= near_gap) c += point_[k], ++m;
    c /= m;  // m >= 1: the deepest is near
    double far = -1.0;
    for (int k = 0; k < n; ++k) {
      if (gap_[k] > near_gap) continue;
      const double d2 = (point_[k] - c).squaredNorm();
      if (d2 > far) far = d2, pick = k;
    }
  }
  // The candidates' coordinates as three arrays, so the distance update below vectorises; the
  // farthest candidate is then the first of the largest distance, as one loop would find it.
  xs_.resize(n);
  ys_.resize(n);
  zs_.resize(n);
  for (int k = 0; k < n; ++k)
    xs_[k] = point_[k].x(), ys_[k] = point_[k].y(), zs_[k] = point_[k].z();
  const double scale2 = by_normals ? extent_squared : 0.0;
  dist2_.assign(n, std::numeric_limits<double>::infinity());
  double* const d = dist2_.data();
  const double *const x = xs_.data(), *const y = ys_.data(), *const z = zs_.data();
  for (int kept = 0; kept < room; ++kept) {
    put(out, pick);
    const double px = x[pick], py = y[pick], pz = z[pick];
    if (scale2 > 0.0) {
      const Vec3 np = normal_[pick];
      for (int k = 0; k < n; ++k) {
        const double dx = x[k] - px, dy = y[k] - py, dz = z[k] - pz;
        d[k] =
            std::min(d[k], dx * dx + dy * dy + dz * dz + scale2 * (normal_[k] - np).squaredNorm());
      }
    } else {
      for (int k = 0; k < n; ++k) {
        const double dx = x[k] - px, dy = y[k] - py, dz = z[k] - pz;
        d[k] = std::min(d[k], dx * dx + dy * dy + dz * dz);
      }
    }
    int next = -1;
    double far = -1.0;
    if (near_first)  // the farthest near candidate, while one is left
      for (int k = 0; k < n; ++k)
        if (gap_[k] <= near_gap && d[k] > far) far = d[k], next = k;
    if (far <= 0.0) {
      next = -1;
      for (int k = 0; k < n; ++k)
        if (d[k] > far) far = d[k], next = k;
    }
    if (next < 0 || far <= 0.0) break;  // every remaining candidate coincides with a kept one
    pick = next;
  }
}

double ContactCollector::extent2() const {
  Vec3 lo = point_[0], hi = point_[0];
  for (std::size_t k = 1; k < point_.size(); ++k)
    lo = lo.cwiseMin(point_[k]), hi = hi.cwiseMax(point_[k]);
  return (hi - lo).squaredNorm();
}

}  // namespace etdem
