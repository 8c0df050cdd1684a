#include "etdem/collision/pair_list.hpp"

#include <algorithm>

#include "etdem/core/parallel.hpp"

namespace etdem {

namespace {

/// Whether box b lies inside reach box r; written so that a NaN box never does.
bool inside(const Aabb& b, const Aabb& r) {
  return (r.min.array() <= b.min.array()).all() && (b.max.array() <= r.max.array()).all();
}

}  // namespace

void PairList::rebuild(BroadPhase& broad, const std::vector<Aabb>& reach_boxes,
                       const std::vector<int>& box_ids) {
  ids = box_ids;
  reach = reach_boxes;
  slots_.resize(ids.size());
  for (std::size_t k = 0; k < slots_.size(); ++k) slots_[k] = static_cast<int>(k);
  // Slots ascend with the body ids, so pairs sorted by slot are sorted by body.
  broad.find_pairs(reach, slots_, pairs);
  generation_ = broad.generation();
  displaced_.assign(ids.size(), 0);
  displaced_list_.clear();
  ++builds;
}

const std::vector<int>& PairList::outside(const std::vector<Aabb>& boxes) {
  moved_.clear();
  for (std::size_t k = 0; k < boxes.size() && k < reach.size(); ++k) {
    if (!inside(boxes[k], reach[k])) moved_.push_back(static_cast<int>(k));
  }
  return moved_;
}

bool PairList::update(const BroadPhase& broad, const std::vector<int>& moved,
                      const std::vector<Aabb>& grown) {
  const std::size_t n = ids.size();
  if (broad.generation() != generation_ || displaced_.size() != n || grown.size() != moved.size())
    return false;
  std::size_t displaced = displaced_list_.size();
  for (const int k : moved) displaced += displaced_[k] ? 0 : 1;
  if (displaced * kMostDisplaced > n) return false;
  // New pairs of the moved slots, found before anything changes (a query the grid cannot
  // answer leaves the list as it was): the grid's candidates whose reach box is still the one
  // in the grid, then every displaced slot, then the moved ones among themselves.
  // is_moved_ is all zero between calls: only the moved slots are marked, and unmarked on the
  // way out.
  is_moved_.resize(n, 0);
  for (const int k : moved) is_moved_[k] = 1;
  auto unmark = [&] {
    for (const int k : moved) is_moved_[k] = 0;
  };
  found_.clear();
  auto add = [&](int k, int o) { found_.push_back({std::min(k, o), std::max(k, o)}); };
  for (std::size_t m = 0; m < moved.size(); ++m) {
    const int k = moved[m];
    const Aabb& box = grown[m];
    near_.clear();
    if (!broad.candidates(box, near_)) {
      unmark();
      return false;
    }
    for (const int o : near_)
      if (o != k && !displaced_[o] && !is_moved_[o] && box.overlaps(reach[o])) add(k, o);
    for (const int o : displaced_list_)
      if (!is_moved_[o] && box.overlaps(reach[o])) add(k, o);
    for (std::size_t q = m + 1; q < moved.size(); ++q)
      if (box.overlaps(grown[q])) add(k, moved[q]);
  }
  for (std::size_t m = 0; m < moved.size(); ++m) {
    const int k = moved[m];
    reach[k] = grown[m];
    if (!displaced_[k]) {
      displaced_[k] = 1;
      displaced_list_.push_back(k);
    }
  }
  // The kept pairs of the others, merged with the new ones: sorted, as a rebuild gives them.
  std::sort(found_.begin(), found_.end());
  kept_.clear();
  kept_.reserve(pairs.size() + found_.size());
  auto f = found_.begin();
  for (const auto& p : pairs) {
    if (is_moved_[p.first] || is_moved_[p.second]) continue;
    for (; f != found_.end() && *f < p; ++f) kept_.push_back(*f);
    kept_.push_back(p);
  }
  kept_.insert(kept_.end(), f, found_.end());
  pairs.swap(kept_);
  unmark();
  ++updates;
  return true;
}

void PairList::select(const std::vector<Aabb>& boxes, std::vector<std::pair<int, int>>& out) const {
  // The overlapping kept pairs, in the kept (sorted) order.
  out.clear();
  parallel_select(
      pairs.size(),
      [&](std::size_t p) { return boxes[pairs[p].first].overlaps(boxes[pairs[p].second]); },
      [&](std::size_t p) { return std::pair<int, int>(ids[pairs[p].first], ids[pairs[p].second]); },
      out);
}

}  // namespace etdem
