// Items grouped by an integer key, as compressed rows: a stable counting sort.
#pragma once

#include <vector>

namespace etdem {

/// Groups items by key in [0, keys): afterwards items[start[k] .. start[k + 1]) are the items of
/// key k, in the order `each` gave them. `each(emit)` calls emit(key, item) for every pair, a
/// negative key meaning none; it is called twice (to count, then to place), and must give the
/// same pairs both times. `fill` is scratch. Buffers keep their capacity from call to call.
template <class Each>
void group_by_key(int keys, Each&& each, std::vector<int>& start, std::vector<int>& items,
                  std::vector<int>& fill) {
  start.assign(static_cast<std::size_t>(keys) + 1, 0);
  each([&](int key, int) {
    if (key >= 0) ++start[static_cast<std::size_t>(key) + 1];
  });
  for (int k = 0; k < keys; ++k) start[k + 1] += start[k];
  items.resize(static_cast<std::size_t>(start[keys]));
  fill.assign(start.begin(), start.end() - 1);
  each([&](int key, int item) {
    if (key >= 0) items[static_cast<std::size_t>(fill[key]++)] = item;
  });
}

}  // namespace etdem
