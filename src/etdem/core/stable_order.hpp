#pragma once
// Indices ordered by a 64-bit key, equal keys in index order: the stable order, which is one
// order whatever algorithm produces it (std::sort leaves equal keys to the library's choice).
// Input made of a few ascending runs (contacts found pair by pair, then wall by wall) is merged
// run with run in linear time per round; more runs take std::stable_sort, with the same result.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace etdem {

/// Reused buffers of stable_order (no allocation once they have grown).
struct StableOrderScratch {
  std::vector<std::size_t> runs;  // where each ascending run starts, then the end
  std::vector<int> merged;        // a round's output
};

/// `order` = 0, ..., n - 1 by ascending keys[i], equal keys in ascending i. Inputs with more than
/// `max_runs` ascending runs are sorted with std::stable_sort instead of merged.
inline void stable_order(std::span<const std::uint64_t> keys, std::vector<int>& order,
                         StableOrderScratch& s, std::size_t max_runs = 64) {
  const std::size_t n = keys.size();
  order.resize(n);
  for (std::size_t k = 0; k < n; ++k) order[k] = static_cast<int>(k);
  auto less = [&](int x, int y) {
    return keys[static_cast<std::size_t>(x)] < keys[static_cast<std::size_t>(y)];
  };
  s.runs.assign(1, 0);
  for (std::size_t k = 1; k < n; ++k)
    if (keys[k] < keys[k - 1]) s.runs.push_back(k);
  s.runs.push_back(n);
  if (s.runs.size() > max_runs + 1) {
    std::stable_sort(order.begin(), order.end(), less);
    return;
  }
  // Each round merges runs 0 and 1, 2 and 3, ...; a last run without a partner is copied.
  // std::merge takes the first range's element on a tie: the earlier index, so the order stays
  // stable round after round.
  while (s.runs.size() > 2) {
    s.merged.resize(n);
    std::size_t kept = 0;
    for (std::size_t r = 0; r + 1 < s.runs.size(); r += 2) {
      const std::size_t lo = s.runs[r], mid = s.runs[r + 1];
      const std::size_t hi = r + 2 < s.runs.size() ? s.runs[r + 2] : mid;
      std::merge(order.begin() + lo, order.begin() + mid, order.begin() + mid, order.begin() + hi,
                 s.merged.begin() + lo, less);
      s.runs[kept++] = lo;
    }
    s.runs[kept++] = n;
    s.runs.resize(kept);
    order.swap(s.merged);
  }
}

}  // namespace etdem
