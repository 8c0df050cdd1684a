// A stable sort for lists that are a few sorted lists laid end to end (the parts of an island
// from each rank, the grains kept and those that arrived, the statics, owned grains and ghosts).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace etdem {

/// Where `items` is at most `most_runs` ascending runs by `less`, sorts it stably (the order
/// std::stable_sort gives) by merging neighbouring runs pairwise, O(n log runs) (one run: one
/// pass, nothing moved), and returns true; otherwise returns false and leaves it as it was.
/// `buffer` is scratch.
template <class T, class Less>
bool merge_sorted_runs(std::vector<T>& items, Less less, std::vector<T>& buffer,
                       std::size_t most_runs = 64) {
  const std::size_t n = items.size();
  std::vector<std::size_t> starts;  // each run's first place, then n
  starts.push_back(0);
  for (std::size_t k = 1; k < n; ++k)
    if (less(items[k], items[k - 1])) {
      if (starts.size() == most_runs) return false;
      starts.push_back(k);
    }
  starts.push_back(n);
  buffer.resize(n);
  // Neighbouring runs merged, the left one first on ties (std::merge), until one is left.
  while (starts.size() > 2) {
    std::vector<std::size_t> merged{0};
    std::size_t r = 0;
    for (; r + 2 < starts.size(); r += 2) {
      std::merge(items.begin() + starts[r], items.begin() + starts[r + 1],
                 items.begin() + starts[r + 1], items.begin() + starts[r + 2],
                 buffer.begin() + starts[r], less);
      merged.push_back(starts[r + 2]);
    }
    if (r + 1 < starts.size()) {  // an odd run left over: as it is
      std::copy(items.begin() + starts[r], items.begin() + starts[r + 1],
                buffer.begin() + starts[r]);
      merged.push_back(starts[r + 1]);
    }
    items.swap(buffer);
    starts.swap(merged);
  }
  return true;
}

/// Sorts `items` stably by `less` (the order std::stable_sort gives): merge_sorted_runs where
/// the list is a few sorted runs, std::stable_sort otherwise.
template <class T, class Less>
void stable_sort_runs(std::vector<T>& items, Less less, std::vector<T>& buffer) {
  if (!merge_sorted_runs(items, less, buffer)) std::stable_sort(items.begin(), items.end(), less);
}
template <class T, class Less>
void stable_sort_runs(std::vector<T>& items, Less less) {
  std::vector<T> buffer;
  stable_sort_runs(items, less, buffer);
}

}  // namespace etdem
