// O(N) broad phase: a uniform grid of cubic cells hashed into a sorted key array. Bodies whose
// box is larger than a cell (walls, large static blocks) are kept in a short "large" list and
// tested against every other body's box. Infinite planes are not handled here (see World).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "etdem/core/math.hpp"

namespace etdem {

struct Aabb {
  Vec3 min{0, 0, 0};
  Vec3 max{0, 0, 0};
  bool overlaps(const Aabb& o) const {
    return (min.array() <= o.max.array()).all() && (o.min.array() <= max.array()).all();
  }
};

class BroadPhase {
 public:
  /// Candidate pairs (i < j) of boxes that overlap, in ascending order of i then j, identical for
  /// any thread count. `boxes[k]` belongs to body `ids[k]`; `pairable(i, j)` is not checked here
  /// (the caller drops static-static pairs).
  void find_pairs(const std::vector<Aabb>& boxes, const std::vector<int>& ids,
                  std::vector<std::pair<int, int>>& pairs);

  double cell_size() const { return cell_; }

  /// After find_pairs: appends to `out` the slot k of every box of that call that may overlap
  /// `box` (a superset: the boxes in the grid cells the box can reach, and every box kept out
  /// of the grid), in no set order. Returns false, appending nothing, when the box lies outside
  /// the grid's range or would span more than kQueryCells cells along an axis (the caller then
  /// builds afresh).
  bool candidates(const Aabb& box, std::vector<int>& out) const;
  static constexpr std::int64_t kQueryCells = 4;
  /// Calls of find_pairs so far: the grid candidates() reads is that of the last one.
  long generation() const { return generation_; }

 private:
  double cell_ = 0.0;
  long generation_ = 0;
  bool valid_ = false;  // the last find_pairs built a grid (it had at least two boxes)
  // The grid of the last find_pairs: origin, and in the dense numbering its lowest cell and size.
  Vec3 lo_{0, 0, 0};
  bool dense_ = false;
  Eigen::Matrix<std::int64_t, 3, 1> cmin_{0, 0, 0}, dims_{0, 0, 0};
  std::vector<std::pair<std::uint64_t, int>> keys_;  // (cell key, slot), sorted
  std::vector<int> large_;                           // slots of boxes larger than a cell
  std::vector<double> extent_, sorted_;              // per box: largest side [m]
  std::vector<char> in_grid_;                        // per box: 1 when in the grid
  std::vector<std::int64_t> cell_start_;             // dense numbering: first item of each cell
  std::vector<int> cell_items_;                      // dense numbering: boxes by cell
  std::vector<std::vector<std::pair<int, int>>> per_thread_;
};

}  // namespace etdem
