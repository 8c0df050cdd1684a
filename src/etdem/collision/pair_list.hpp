// Candidate pairs kept over several steps (a Verlet list of boxes). Each body's box is grown into
// a "reach" box that holds the boxes it will sweep for a few steps; the pairs whose reach boxes
// overlap are found once by the grid (BroadPhase) and kept. A step whose swept boxes all lie
// inside their reach boxes takes, from the kept pairs, those whose swept boxes overlap: exactly
// the pairs the grid would find (two boxes inside two reach boxes overlap only if the reach
// boxes do), in the same order, so the list changes the cost of the broad phase and nothing
// else. Boxes outside their reach get new reach boxes and their pairs are found again through
// the last build's grid (update), the other pairs kept; when too many reach boxes differ from
// the grid's, the list is rebuilt. Another set of bodies keeps the pairs of the bodies in both
// sets (adopt, renumber): the new bodies are boxes outside their reach, found through the grid
// like the others, so a rank whose ghosts change every step keeps its list.
#pragma once

#include <utility>
#include <vector>

#include "etdem/collision/broad_phase.hpp"
#include "etdem/core/parallel.hpp"

namespace etdem {

/// Plain data: a cache of the broad phase. Dropping it (clear) never changes a result, so a
/// checkpoint need not store it.
struct PairList {
  std::vector<int> ids;                    // per slot: its body (ascending)
  std::vector<Aabb> reach;                 // per slot: the box its swept boxes must stay in [m]
  std::vector<std::pair<int, int>> pairs;  // slot pairs (i < j) whose reach boxes overlap, sorted
  long builds = 0;                         // rebuilds so far (summary.json)
  long updates = 0;                        // partial updates so far (summary.json)

  void clear() {
    ids.clear();
    reach.clear();
    pairs.clear();
    displaced_.clear();
    displaced_list_.clear();
    grid_slot_.clear();
    moved_.clear();
  }
  /// Builds the list from reach boxes (each must hold its body's box of this step).
  void rebuild(BroadPhase& broad, const std::vector<Aabb>& reach_boxes,
               const std::vector<int>& box_ids);
  /// Carries the list over to the bodies `box_ids` (ascending; a body id means the same body as
  /// in `ids`): a body in both keeps its reach box and its pairs with the others in both, a
  /// body no longer listed is dropped with its pairs, and a new one gets a slot without a reach
  /// (outside() lists it). An empty list stays empty. Returns whether the list is now for
  /// `box_ids` (false only when it was empty).
  bool adopt(const std::vector<int>& box_ids);
  /// The bodies renumbered: `new_id[i]` is body i's id now, -1 when it is gone. The ids kept
  /// must ascend as they did; if they do not, the list is cleared and false returned.
  bool renumber(const std::vector<int>& new_id);
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
  void select(const std::vector<Aabb>& boxes, std::vector<std::pair<int, int>>& out) const {
    select(boxes, out, [](int, int) { return true; });
  }
  /// The same, only the pairs of slots (i, j) for which keep(i, j) holds (slot k is body
  /// ids[k], whose box is boxes[k]).
  template <class Keep>
  void select(const std::vector<Aabb>& boxes, std::vector<std::pair<int, int>>& out,
              Keep&& keep) const {
    out.clear();
    parallel_select(
        pairs.size(),
        [&](std::size_t p) {
          const auto [i, j] = pairs[p];
          return boxes[i].overlaps(boxes[j]) && keep(i, j);
        },
        [&](std::size_t p) {
          return std::pair<int, int>(ids[pairs[p].first], ids[pairs[p].second]);
        },
        out);
  }

 private:
  /// Gives slot k the slot to[k] (-1: dropped) of a list of n slots; the kept slots ascend.
  void move_slots(const std::vector<int>& to, std::size_t n);

  std::vector<int> slots_;           // 0..n-1, the ids the grid is given
  std::vector<int> grid_slot_;       // per slot of the grid's build: its slot now (-1: gone)
  std::vector<int> to_;              // adopt's and renumber's new slot of each slot
  std::vector<Aabb> carried_;        // their reach boxes on the new slots
  std::vector<char> moved_flags_;    // move_slots' displaced_ on the new slots
  long generation_ = -1;             // the grid's (BroadPhase::generation) at the last rebuild
  std::vector<char> displaced_;      // per slot: its reach box is not the one in the grid
  std::vector<int> displaced_list_;  // those slots
  std::vector<int> moved_;           // outside()'s answer
  std::vector<char> is_moved_;       // per slot: marked during update, all zero between
  std::vector<int> near_;            // update's candidates of one slot
  std::vector<std::pair<int, int>> found_, kept_;  // update's new pairs, the merge's output
};

}  // namespace etdem
