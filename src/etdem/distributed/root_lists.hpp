// Items grouped by the island they belong to (distributed/rank_islands.cpp): a rank's
// candidates and touched grains, each island's in the order they came.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

namespace etdem::distributed {

/// Lists of items by island root (a global id), the roots ascending, each list in the order its
/// items were added: one flat array with each root's range, rebuilt each sub-step in its room
/// (no allocation per island once the room has grown).
class RootLists {
 public:
  /// Items 0..count-1 grouped by `root_of(j)` (a global id below `ids`), each list in item
  /// order; `item_of(j)` is what the list holds. Two passes over the items and a sort of the
  /// distinct roots.
  template <class RootOf, class ItemOf>
  void build(std::size_t count, std::int64_t ids, RootOf&& root_of, ItemOf&& item_of) {
    if (slot_of_.size() < static_cast<std::size_t>(ids))
      slot_of_.resize(static_cast<std::size_t>(ids), -1);
    roots_.clear();
    counts_.clear();
    // Each root's slot in the order first met, and its count.
    item_slot_.resize(count);
    for (std::size_t j = 0; j < count; ++j) {
      const std::int64_t r = root_of(j);
      if (r < 0 || r >= ids) {  // (the roots met so far unmarked: the room stays clean)
        for (const std::int64_t met : roots_) slot_of_[static_cast<std::size_t>(met)] = -1;
        roots_.clear();
        throw std::logic_error("an island root outside the world's ids");
      }
      int& slot = slot_of_[static_cast<std::size_t>(r)];
      if (slot < 0) {
        slot = static_cast<int>(roots_.size());
        roots_.push_back(r);
        counts_.push_back(0);
      }
      ++counts_[static_cast<std::size_t>(slot)];
      item_slot_[j] = slot;
    }
    // The slots by ascending root, and each list's first place.
    const std::size_t n = roots_.size();
    by_root_.resize(n);
    for (std::size_t s = 0; s < n; ++s) by_root_[s] = static_cast<int>(s);
    std::sort(by_root_.begin(), by_root_.end(), [&](int a, int b) {
      return roots_[static_cast<std::size_t>(a)] < roots_[static_cast<std::size_t>(b)];
    });
    begin_.assign(n + 1, 0);
    slot_begin_.resize(n);
    std::size_t at = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const auto s = static_cast<std::size_t>(by_root_[k]);
      begin_[k] = at;
      slot_begin_[s] = at;
      at += counts_[s];
    }
    begin_[n] = at;
    items_.resize(count);
    for (std::size_t j = 0; j < count; ++j)
      items_[slot_begin_[static_cast<std::size_t>(item_slot_[j])]++] = item_of(j);
    sorted_roots_.resize(n);
    for (std::size_t k = 0; k < n; ++k)
      sorted_roots_[k] = roots_[static_cast<std::size_t>(by_root_[k])];
    for (const std::int64_t r : roots_) slot_of_[static_cast<std::size_t>(r)] = -1;
  }
  /// The number of roots.
  std::size_t size() const { return sorted_roots_.size(); }
  /// The k-th root, ascending.
  std::int64_t root(std::size_t k) const { return sorted_roots_[k]; }
  /// The k-th root's list.
  std::span<const int> list(std::size_t k) const {
    return {items_.data() + begin_[k], begin_[k + 1] - begin_[k]};
  }
  /// The place of `root` among the roots, or size() where it has no list.
  std::size_t find(std::int64_t root) const {
    const auto it = std::lower_bound(sorted_roots_.begin(), sorted_roots_.end(), root);
    return it != sorted_roots_.end() && *it == root
               ? static_cast<std::size_t>(it - sorted_roots_.begin())
               : size();
  }
  /// The list of `root`; throws std::logic_error where it has none.
  std::span<const int> at(std::int64_t root) const {
    const std::size_t k = find(root);
    if (k == size()) throw std::logic_error("no list for an island root");
    return list(k);
  }

 private:
  std::vector<int> slot_of_;  // per global id: its slot while building, else -1
  std::vector<std::int64_t> roots_, sorted_roots_;
  std::vector<std::size_t> counts_, begin_, slot_begin_;
  std::vector<int> by_root_, item_slot_, items_;
};

}  // namespace etdem::distributed
