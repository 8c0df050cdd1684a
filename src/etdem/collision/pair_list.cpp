#include "etdem/collision/pair_list.hpp"

#include <algorithm>
#include <limits>

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
  grid_slot_ = slots_;
  displaced_.assign(ids.size(), 0);
  displaced_list_.clear();
  ++builds;
}

void PairList::move_slots(const std::vector<int>& to, std::size_t n) {
  // The kept slots ascend, so the kept pairs stay sorted.
  std::size_t out = 0;
  for (const auto& [i, j] : pairs)
    if (to[i] >= 0 && to[j] >= 0) pairs[out++] = {to[i], to[j]};
  pairs.resize(out);
  moved_flags_.assign(n, 0);
  out = 0;
  for (const int k : displaced_list_)
    if (to[k] >= 0) {
      displaced_list_[out++] = to[k];
      moved_flags_[to[k]] = 1;
    }
  displaced_list_.resize(out);
  displaced_.swap(moved_flags_);
  for (int& g : grid_slot_) g = g >= 0 ? to[g] : -1;
  is_moved_.assign(n, 0);
}

bool PairList::adopt(const std::vector<int>& box_ids) {
  if (ids == box_ids) return true;
  if (ids.empty()) return false;
  // A new body's reach holds no box: it is outside it.
  const double inf = std::numeric_limits<double>::infinity();
  carried_.assign(box_ids.size(), Aabb{Vec3::Constant(inf), Vec3::Constant(-inf)});
  to_.assign(ids.size(), -1);
  std::size_t k = 0;
  for (std::size_t s = 0; s < box_ids.size(); ++s) {
    while (k < ids.size() && ids[k] < box_ids[s]) ++k;
    if (k < ids.size() && ids[k] == box_ids[s]) {
      to_[k] = static_cast<int>(s);
      carried_[s] = reach[k];
      ++k;
    }
  }
  move_slots(to_, box_ids.size());
  ids = box_ids;
  reach.swap(carried_);
  return true;
}

bool PairList::renumber(const std::vector<int>& new_id) {
  // The kept slots move down in place (slot k goes to a slot <= k).
  to_.assign(ids.size(), -1);
  std::size_t kept = 0;
  for (std::size_t k = 0; k < ids.size(); ++k) {
    const int id = ids[k] >= 0 && static_cast<std::size_t>(ids[k]) < new_id.size()
                       ? new_id[static_cast<std::size_t>(ids[k])]
                       : -1;
    if (id < 0) continue;
    if (kept > 0 && id <= ids[kept - 1]) {
      clear();
      return false;
    }
    to_[k] = static_cast<int>(kept);
    ids[kept] = id;
    reach[kept] = reach[k];
    ++kept;
  }
  ids.resize(kept);
  reach.resize(kept);
  move_slots(to_, kept);
  return true;
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
    for (const int g : near_) {
      const int o = grid_slot_[static_cast<std::size_t>(g)];  // -1: gone since the build
      if (o >= 0 && o != k && !displaced_[o] && !is_moved_[o] && box.overlaps(reach[o])) add(k, o);
    }
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

}  // namespace etdem
