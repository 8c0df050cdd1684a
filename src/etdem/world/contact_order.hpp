// The serial order of a step's contacts as a key (docs/distributed.md, design item 5): the
// narrow phase lists the contacts of bounded pairs first, by pair (a < b), then each dynamic
// body's contacts with the planes and terrains (tested apart), by body and then wall; the
// points of one pair keep the order the pair function gave them. A host that gathers an
// island's contacts from several ranks (each pair detected on one rank, its points together
// and in order) restores the serial order with a stable sort by this key, on global ids.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <tuple>
#include <vector>

#include "etdem/core/sort_runs.hpp"

namespace etdem {

struct ContactOrderKey {
  bool against_unbounded = false;  // the second body is a plane or a terrain
  std::int64_t a = -1, b = -1;     // global body ids as the contact names them

  friend bool operator<(const ContactOrderKey& x, const ContactOrderKey& y) {
    return std::tie(x.against_unbounded, x.a, x.b) < std::tie(y.against_unbounded, y.a, y.b);
  }
};

/// The places 0..n-1 of `keys` in a stable sort by key: the serial order of contacts listed in
/// another order, each key computed once (the sort compares keys, not 200-byte contacts). The
/// lists it gets are a few lists in serial order laid end to end (an island's parts from each
/// rank; each grain's contacts, its pairs' and then its walls'): the places are first split
/// stably by the key's first field, which leaves a few sorted runs to merge (stable_sort_runs).
inline void stable_order(std::span<const ContactOrderKey> keys, std::vector<int>& order) {
  const int n = static_cast<int>(keys.size());
  order.resize(keys.size());
  int bounded = 0;
  for (int k = 0; k < n; ++k) bounded += keys[k].against_unbounded ? 0 : 1;
  int first = 0, second = bounded;
  for (int k = 0; k < n; ++k) order[keys[k].against_unbounded ? second++ : first++] = k;
  stable_sort_runs(order, [&](int x, int y) { return keys[x] < keys[y]; });
}

}  // namespace etdem
