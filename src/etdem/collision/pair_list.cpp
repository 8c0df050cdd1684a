#include "etdem/collision/pair_list.hpp"

#include <omp.h>

#include "etdem/core/parallel.hpp"

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
  const std::size_t n = pairs.size();
  if (n < kParallelLength || omp_in_parallel() || omp_get_max_threads() == 1) {
    for (const auto& [i, j] : pairs)
      if (boxes[i].overlaps(boxes[j])) out.push_back({ids[i], ids[j]});
    return;
  }
  // One contiguous chunk of the kept pairs per thread: each counts its overlapping pairs, then
  // writes them at its chunk's offset, so `out` is in the kept (sorted) order.
  std::vector<std::size_t> start(static_cast<std::size_t>(omp_get_max_threads()) + 1, 0);
#pragma omp parallel
  {
    const std::size_t t = static_cast<std::size_t>(omp_get_thread_num());
    const std::size_t team = static_cast<std::size_t>(omp_get_num_threads());
    const std::size_t lo = n * t / team, hi = n * (t + 1) / team;
    std::size_t count = 0;
    for (std::size_t p = lo; p < hi; ++p)
      count += boxes[pairs[p].first].overlaps(boxes[pairs[p].second]) ? 1 : 0;
    start[t + 1] = count;
#pragma omp barrier
#pragma omp single
    {
      for (std::size_t k = 0; k < team; ++k) start[k + 1] += start[k];
      out.resize(start[team]);
    }
    std::size_t at = start[t];
    for (std::size_t p = lo; p < hi; ++p) {
      const auto [i, j] = pairs[p];
      if (boxes[i].overlaps(boxes[j])) out[at++] = {ids[i], ids[j]};
    }
  }
}

}  // namespace etdem
