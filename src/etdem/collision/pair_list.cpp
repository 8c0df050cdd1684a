#include "etdem/collision/pair_list.hpp"

namespace etdem {

bool PairList::covers(const std::vector<Aabb>& boxes, const std::vector<int>& box_ids) const {
  if (box_ids != ids) return false;
  for (std::size_t k = 0; k < boxes.size(); ++k) {
    const Aabb& b = boxes[k];
    const Aabb& r = reach[k];
    // Written so that a NaN box is never covered.
    if (!((r.min.array() <= b.min.array()).all() && (b.max.array() <= r.max.array()).all()))
      return false;
  }
  return true;
}

void PairList::rebuild(BroadPhase& broad, const std::vector<Aabb>& reach_boxes,
                       const std::vector<int>& box_ids) {
  ids = box_ids;
  reach = reach_boxes;
  slots_.resize(ids.size());
  for (std::size_t k = 0; k < slots_.size(); ++k) slots_[k] = static_cast<int>(k);
  // Slots ascend with the body ids, so pairs sorted by slot are sorted by body.
  broad.find_pairs(reach, slots_, pairs);
  ++builds;
}

void PairList::select(const std::vector<Aabb>& boxes, std::vector<std::pair<int, int>>& out) const {
  out.clear();
  for (const auto& [i, j] : pairs)
    if (boxes[i].overlaps(boxes[j])) out.push_back({ids[i], ids[j]});
}

}  // namespace etdem
