// Disjoint sets on indices as a parent forest (a root is its own parent): the islands of a
// step's contacts (world/islands), their labels across ranks (distributed/island_labels) and a
// part's collision groups (distributed/rank_islands).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace etdem {

/// The root of x's set in `parent`, each step on the way pointed at its grandparent (path
/// halving).
inline int find_root(std::vector<int>& parent, int x) {
  while (parent[static_cast<std::size_t>(x)] != x) {
    parent[static_cast<std::size_t>(x)] =
        parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
    x = parent[static_cast<std::size_t>(x)];
  }
  return x;
}

/// The sets of a and b joined under the smaller of their roots: a set's root is its smallest
/// index whatever the order of the unions.
inline void unite(std::vector<int>& parent, int a, int b) {
  const int ra = find_root(parent, a), rb = find_root(parent, b);
  if (ra != rb) parent[static_cast<std::size_t>(std::max(ra, rb))] = std::min(ra, rb);
}

}  // namespace etdem
