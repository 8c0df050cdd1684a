#include "etdem/collision/broad_phase.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "etdem/core/parallel.hpp"

namespace etdem {
namespace {

constexpr std::int64_t kBias = 1 << 20;  // cell coordinates in [-2^20, 2^20)

std::uint64_t cell_key(std::int64_t x, std::int64_t y, std::int64_t z) {
  return (static_cast<std::uint64_t>(x + kBias) << 42) |
         (static_cast<std::uint64_t>(y + kBias) << 21) | static_cast<std::uint64_t>(z + kBias);
}

}  // namespace

void BroadPhase::find_pairs(const std::vector<Aabb>& boxes, const std::vector<int>& ids,
                            std::vector<std::pair<int, int>>& pairs) {
  pairs.clear();
  ++generation_;
  valid_ = false;
  const int n = static_cast<int>(boxes.size());
  if (n < 2) return;
  // Boxes more than twice the median extent (walls, blocks) go to a brute-force list, so a few
  // large bodies do not coarsen the grid.
  extent_.resize(n);
  std::vector<double>& extent = extent_;
  for (int k = 0; k < n; ++k) extent[k] = (boxes[k].max - boxes[k].min).maxCoeff();
  sorted_ = extent;
  std::nth_element(sorted_.begin(), sorted_.begin() + n / 2, sorted_.end());
  const double threshold = 2.0 * sorted_[n / 2];
  // The cell is the largest extent up to the threshold: as small as the grains allow (a cell
  // of twice the grain size held ~15 grains in a pile and cost 400 box tests per grain).
  cell_ = 1e-12;
  for (int k = 0; k < n; ++k)
    if (extent[k] <= threshold) cell_ = std::max(cell_, extent[k]);
  keys_.clear();
  large_.clear();
  // Grid origin: the median of the boxes' min corners (per axis), so one far body cannot push
  // every other box out of the coordinate range.
  Vec3& lo = lo_;
  for (int axis = 0; axis < 3; ++axis) {
    for (int k = 0; k < n; ++k) sorted_[k] = boxes[k].min[axis];
    std::nth_element(sorted_.begin(), sorted_.begin() + n / 2, sorted_.end());
    lo[axis] = std::isfinite(sorted_[n / 2]) ? sorted_[n / 2] : 0.0;
  }
  auto coord = [&](const Vec3& p) {
    return Eigen::Matrix<std::int64_t, 3, 1>(std::int64_t(std::floor((p.x() - lo.x()) / cell_)),
                                             std::int64_t(std::floor((p.y() - lo.y()) / cell_)),
                                             std::int64_t(std::floor((p.z() - lo.z()) / cell_)));
  };
  // Cell coordinates are checked in floating point before the conversion: a body far from the
  // others (1e18 m, or a grain flung out) would overflow the integer cast. Such boxes, like
  // non-finite ones, go to the brute-force list, so the grid spans only the occupied block and
  // its memory never depends on the scene's extent.
  const double limit = static_cast<double>(kBias - 2);
  auto in_range = [&](const Vec3& p) {
    const Vec3 c = (p - lo) / cell_;
    return std::abs(c.x()) < limit && std::abs(c.y()) < limit && std::abs(c.z()) < limit;
  };
  in_grid_.assign(n, 0);
  for (int k = 0; k < n; ++k) {
    if (extent[k] > cell_ || !in_range(boxes[k].min)) {
      large_.push_back(k);
    } else {
      const auto c = coord(boxes[k].min);
      keys_.push_back({cell_key(c.x(), c.y(), c.z()), k});
      in_grid_[k] = 1;
    }
  }
  std::sort(keys_.begin(), keys_.end());

  // Where the occupied cells fill a compact block (a pile, a pour), cells are numbered densely
  // and found by index; otherwise by binary search in the sorted keys.
  Eigen::Matrix<std::int64_t, 3, 1>& cmin = cmin_;
  Eigen::Matrix<std::int64_t, 3, 1> cmax;
  cmin.setConstant(std::numeric_limits<std::int64_t>::max());
  cmax.setConstant(std::numeric_limits<std::int64_t>::min());
  for (int k = 0; k < n; ++k)
    if (in_grid_[k]) {
      const auto c = coord(boxes[k].min);
      cmin = cmin.cwiseMin(c);
      cmax = cmax.cwiseMax(c);
    }
  dims_ = (cmax - cmin).array() + 1;
  const Eigen::Matrix<std::int64_t, 3, 1>& dims = dims_;
  dense_ = !keys_.empty() && dims.prod() <= 8 * static_cast<std::int64_t>(n) + 4096;
  const bool dense = dense_;
  if (dense) {
    const std::int64_t cells = dims.prod();
    cell_start_.assign(cells + 1, 0);
    for (const auto& kv : keys_) {
      const Eigen::Matrix<std::int64_t, 3, 1> c = coord(boxes[kv.second].min) - cmin;
      ++cell_start_[(c.x() * dims.y() + c.y()) * dims.z() + c.z() + 1];
    }
    for (std::int64_t i = 0; i < cells; ++i) cell_start_[i + 1] += cell_start_[i];
    cell_items_.resize(keys_.size());
    for (std::size_t j = 0; j < keys_.size(); ++j) cell_items_[j] = keys_[j].second;  // sorted
  }

  const int threads = omp_get_max_threads();
  per_thread_.resize(threads);
  for (auto& v : per_thread_) v.clear();
  // Small scenes stay on one thread: a parallel region costs more than it saves there, and much
  // more when several processes share the cores.
  const bool parallel = runs_parallel(static_cast<std::size_t>(n), kParallelPairs);
#pragma omp parallel num_threads(threads) if (parallel)
  {
    auto& out = per_thread_[omp_get_thread_num()];
    auto consider = [&](int k, int o) {
      if (ids[o] <= ids[k]) return;  // each pair once
      if (boxes[k].overlaps(boxes[o])) out.push_back({ids[k], ids[o]});
    };
    // Boxes in input order, so the pairs come out sorted by their first body when the ids
    // ascend (the world's do): only each body's few partners need sorting.
#pragma omp for schedule(static)
    for (int k = 0; k < n; ++k) {
      if (!in_grid_[k]) continue;
      const std::size_t begin = out.size();
      const auto c = coord(boxes[k].min);
      // A box no larger than a cell, keyed by its min corner, can only overlap boxes whose min
      // corner lies in the same or an adjacent cell. z is the fastest part of both numberings,
      // so the cells z-1..z+1 of one (x, y) column are one contiguous range.
      for (int dx = -1; dx <= 1; ++dx)
        for (int dy = -1; dy <= 1; ++dy) {
          if (dense) {
            const Eigen::Matrix<std::int64_t, 3, 1> r = c - cmin;
            const std::int64_t x = r.x() + dx, y = r.y() + dy;
            if (x < 0 || y < 0 || x >= dims.x() || y >= dims.y()) continue;
            const std::int64_t z0 = std::max<std::int64_t>(r.z() - 1, 0);
            const std::int64_t z1 = std::min<std::int64_t>(r.z() + 1, dims.z() - 1);
            const std::int64_t column = (x * dims.y() + y) * dims.z();
            for (std::int64_t j = cell_start_[column + z0]; j < cell_start_[column + z1 + 1]; ++j)
              consider(k, cell_items_[j]);
          } else {
            const std::uint64_t first = cell_key(c.x() + dx, c.y() + dy, c.z() - 1);
            const std::uint64_t last = cell_key(c.x() + dx, c.y() + dy, c.z() + 1);
            auto it = std::lower_bound(keys_.begin(), keys_.end(), std::make_pair(first, -1));
            for (; it != keys_.end() && it->first <= last; ++it) consider(k, it->second);
          }
        }
      std::sort(out.begin() + begin, out.end());
    }
  }
  for (auto& v : per_thread_) pairs.insert(pairs.end(), v.begin(), v.end());
  // Large boxes against everything (walls and big blocks are few).
  for (int a : large_)
    for (int k = 0; k < n; ++k) {
      if (k == a) continue;
      const bool other_large = !in_grid_[k];
      if (other_large && ids[k] < ids[a]) continue;  // large-large pair once
      if (boxes[a].overlaps(boxes[k]))
        pairs.push_back({std::min(ids[a], ids[k]), std::max(ids[a], ids[k])});
    }
  valid_ = true;
  // Canonical order, independent of thread count and of the grid's cell order.
  if (!large_.empty() || !std::is_sorted(pairs.begin(), pairs.end())) {
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  }
}

bool BroadPhase::candidates(const Aabb& box, std::vector<int>& out) const {
  // Boxes of the grid are no larger than a cell and keyed by their min corner: one overlapping
  // `box` has its min corner within [box.min - cell, box.max] on every axis.
  if (!valid_) return false;
  const double limit = static_cast<double>(kBias - 2);
  std::int64_t from[3], to[3];
  for (int axis = 0; axis < 3; ++axis) {
    const double a = (box.min[axis] - lo_[axis]) / cell_, b = (box.max[axis] - lo_[axis]) / cell_;
    if (!(std::abs(a) < limit && std::abs(b) < limit)) return false;  // NaN too
    from[axis] = static_cast<std::int64_t>(std::floor(a)) - 1;
    to[axis] = static_cast<std::int64_t>(std::floor(b));
    if (to[axis] - from[axis] > kQueryCells) return false;
  }
  if (dense_) {
    for (int axis = 0; axis < 3; ++axis) {
      from[axis] = std::max<std::int64_t>(from[axis] - cmin_[axis], 0);
      to[axis] = std::min<std::int64_t>(to[axis] - cmin_[axis], dims_[axis] - 1);
    }
    for (std::int64_t x = from[0]; x <= to[0]; ++x)
      for (std::int64_t y = from[1]; y <= to[1]; ++y) {
        if (from[2] > to[2]) continue;
        const std::int64_t column = (x * dims_.y() + y) * dims_.z();
        for (std::int64_t j = cell_start_[column + from[2]]; j < cell_start_[column + to[2] + 1];
             ++j)
          out.push_back(cell_items_[j]);
      }
  } else {
    for (std::int64_t x = from[0]; x <= to[0]; ++x)
      for (std::int64_t y = from[1]; y <= to[1]; ++y) {
        const std::uint64_t first = cell_key(x, y, from[2]), last = cell_key(x, y, to[2]);
        auto it = std::lower_bound(keys_.begin(), keys_.end(), std::make_pair(first, -1));
        for (; it != keys_.end() && it->first <= last; ++it) out.push_back(it->second);
      }
  }
  out.insert(out.end(), large_.begin(), large_.end());
  return true;
}

}  // namespace etdem
