// Candidate pairs kept over several steps (a Verlet list of boxes). Each body's box is grown into
// a "reach" box that holds the boxes it will sweep for a few steps; the pairs whose reach boxes
// overlap are found once by the grid (BroadPhase) and kept. A step whose swept boxes all lie
// inside their reach boxes takes, from the kept pairs, those whose swept boxes overlap: exactly
// the pairs the grid would find (two boxes inside two reach boxes overlap only if the reach
// boxes do), in the same order, so the list changes the cost of the broad phase and nothing
// else. Another set of bodies rebuilds the list. Boxes outside their reach get new reach boxes
// and their pairs are found again through the last build's grid (update), the other pairs
// kept; when too many reach boxes differ from the grid's, the list is rebuilt.
#pragma once

#include <utility>
#include <vector>

#include "etdem/collision/broad_phase.hpp"

namespace etdem {

/// Plain data: a cache of the broad phase. Dropping it (clear) never changes a result, so a
/// checkpoint need not store it.
struct PairList {
  std::vector<int> ids;                    // per slot: its body at the build (ascending)
  std::vector<Aabb> reach;                 // per slot: the box its swept boxes must stay in [m]
  std::vector<std::pair<int, int>> pairs;  // slot pairs (i < j) whose reach boxes overlap, sorted
  long builds = 0;                         // rebuilds so far (summary.json)
  long updates = 0;                        // partial updates so far (summary.json)

  void clear() {
    ids.clear();
    reach.clear();
    pairs.clear();
    displaced_.clear();
    moved_.clear();
  }
  /// Builds the list from reach boxes (each must hold its body's box of this step).
  void rebuild(BroadPhase& broad, const std::vector<Aabb>& reach_boxes,
               const std::vector<int>& box_ids);
  /// The slots whose box of this step lies outside its reach box (the list built for these
  /// bodies). Empty: the list covers the step.
  const std::vector<int>& outside(const std::vector<Aabb>& boxes);
  /// Gives the slots `moved` (from outside()) the reach boxes `grown` (one each, each holding
  /// its body's box) and finds their pairs again, keeping the others: the list is then what a
  /// rebuild from the same reach boxes gives, pair for pair and in order. Returns false and
  /// changes nothing when it cannot (the grid is not the last build's, a box is outside the
  /// grid's range, or more than one slot in kMostDisplaced holds a reach box the grid does
  /// not); the caller rebuilds.
  bool update(const BroadPhase& broad, const std::vector<int>& moved,
              const std::vector<Aabb>& grown);
  static constexpr std::size_t kMostDisplaced = 16;
  /// The kept pairs whose boxes overlap this step, as body ids, sorted.
  void select(const std::vector<Aabb>& boxes, std::vector<std::pair<int, int>>& out) const;

 private:
  std::vector<int> slots_;           // 0..n-1, the ids the grid is given
  long generation_ = -1;             // the grid's (BroadPhase::generation) at the last rebuild
  std::vector<char> displaced_;      // per slot: its reach box is not the one in the grid
  std::vector<int> displaced_list_;  // those slots
  std::vector<int> moved_;           // outside()'s answer
  std::vector<char> is_moved_;       // per slot: marked during update, all zero between
  std::vector<int> near_;            // update's candidates of one slot
  std::vector<std::pair<int, int>> found_, kept_;  // update's new pairs, the merge's output
};

}  // namespace etdem
