// Items grouped by the island they belong to (distributed/rank_islands.cpp): a rank's
// candidates and touched grains, each island's in the order they came.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "etdem/core/group_by_key.hpp"

namespace etdem::distributed {

/// Lists of items by island root (a global id), the roots ascending, each list in the order its
/// items were added: the distinct roots placed in ascending order, then the items grouped by
/// that place (core/group_by_key), rebuilt each sub-step in its room (no allocation per island
/// once the room has grown).
class RootLists {
 public:
  /// Items 0..count-1 grouped by `root_of(j)` (a global id below `ids`), each list in item
  /// order; `item_of(j)` is what the list holds.
  template <class RootOf, class ItemOf>
  void build(std::size_t count, std::int64_t ids, RootOf&& root_of, ItemOf&& item_of) {
    if (slot_of_.size() < static_cast<std::size_t>(ids))
      slot_of_.resize(static_cast<std::size_t>(ids), -1);
    // The distinct roots (each marked once met), then each marked with its place among them.
    roots_.clear();
    item_root_.resize(count);
    for (std::size_t j = 0; j < count; ++j) {
      const std::int64_t r = root_of(j);
      if (r < 0 || r >= ids) {  // (the roots met so far unmarked: the room stays clean)
        unmark();
        roots_.clear();
        throw std::logic_error("an island root outside the world's ids");
      }
      item_root_[j] = r;
      int& slot = slot_of_[static_cast<std::size_t>(r)];
      if (slot < 0) slot = 0, roots_.push_back(r);
    }
    std::sort(roots_.begin(), roots_.end());
    for (std::size_t k = 0; k < roots_.size(); ++k)
      slot_of_[static_cast<std::size_t>(roots_[k])] = static_cast<int>(k);
    group_by_key(
        static_cast<int>(roots_.size()),
        [&](auto&& emit) {
          for (std::size_t j = 0; j < count; ++j)
            emit(slot_of_[static_cast<std::size_t>(item_root_[j])], item_of(j));
        },
        start_, items_, fill_);
    unmark();
  }
  /// The number of roots.
  std::size_t size() const { return roots_.size(); }
  /// The k-th root, ascending.
  std::int64_t root(std::size_t k) const { return roots_[k]; }
  /// The k-th root's list.
  std::span<const int> list(std::size_t k) const {
    return {items_.data() + start_[k], static_cast<std::size_t>(start_[k + 1] - start_[k])};
  }
  /// The place of `root` among the roots, or size() where it has no list.
  std::size_t find(std::int64_t root) const {
    const auto it = std::lower_bound(roots_.begin(), roots_.end(), root);
    return it != roots_.end() && *it == root ? static_cast<std::size_t>(it - roots_.begin())
                                             : size();
  }
  /// The list of `root`; throws std::logic_error where it has none.
  std::span<const int> at(std::int64_t root) const {
    const std::size_t k = find(root);
    if (k == size()) throw std::logic_error("no list for an island root");
    return list(k);
  }

 private:
  void unmark() {
    for (const std::int64_t r : roots_) slot_of_[static_cast<std::size_t>(r)] = -1;
  }
  std::vector<int> slot_of_;  // per global id: its root's place while building, else -1
  std::vector<std::int64_t> roots_, item_root_;  // ascending (once built); per item its root
  std::vector<int> start_, items_, fill_;        // (group_by_key's lists)
};

}  // namespace etdem::distributed
