// Candidate pairs kept over several steps (a Verlet list of boxes). Each body's box is grown into
// a "reach" box that holds the boxes it will sweep for a few steps; the pairs whose reach boxes
// overlap are found once by the grid (BroadPhase) and kept. A step whose swept boxes all lie
// inside their reach boxes takes, from the kept pairs, those whose swept boxes overlap: exactly
// the pairs the grid would find (two boxes inside two reach boxes overlap only if the reach
// boxes do), in the same order, so the list changes the cost of the broad phase and nothing
// else. A box outside its reach, or another set of bodies, rebuilds the list.
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

  void clear() {
    ids.clear();
    reach.clear();
    pairs.clear();
  }
  /// Whether the list was built for these bodies and every box lies inside its reach box.
  bool covers(const std::vector<Aabb>& boxes, const std::vector<int>& box_ids) const;
  /// Builds the list from reach boxes (each must hold its body's box of this step).
  void rebuild(BroadPhase& broad, const std::vector<Aabb>& reach_boxes,
               const std::vector<int>& box_ids);
  /// The kept pairs whose boxes overlap this step, as body ids, sorted.
  void select(const std::vector<Aabb>& boxes, std::vector<std::pair<int, int>>& out) const;

 private:
  std::vector<int> slots_;  // 0..n-1, the ids the grid is given
};

}  // namespace etdem
