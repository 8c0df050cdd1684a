// Contact islands (world/islands): the connected components of the dynamic bodies through the
// candidate contacts, numbered by their smallest body, each island's contacts and bodies in
// ascending original order. Checked against a plain breadth-first search on random graphs.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <queue>
#include <random>
#include <vector>

#include "etdem/core/group_by_key.hpp"
#include "etdem/world/islands.hpp"

namespace etdem {
namespace {

/// The islands by breadth-first search: per body its island (-1: in no candidate contact or
/// static), numbered in order of the smallest body.
std::vector<int> reference_islands(const std::vector<Contact>& contacts,
                                   const std::vector<int>& candidates,
                                   const std::vector<char>& dynamic) {
  const int nb = static_cast<int>(dynamic.size());
  std::vector<std::vector<int>> next(nb);
  std::vector<char> touched(nb, 0);
  for (const int ci : candidates) {
    const Contact& c = contacts[ci];
    const bool da = c.a >= 0 && dynamic[c.a], db = c.b >= 0 && dynamic[c.b];
    if (da) touched[c.a] = 1;
    if (db) touched[c.b] = 1;
    if (da && db) {
      next[c.a].push_back(c.b);
      next[c.b].push_back(c.a);
    }
  }
  std::vector<int> island(nb, -1);
  int count = 0;
  for (int start = 0; start < nb; ++start) {
    if (!touched[start] || island[start] >= 0) continue;
    std::queue<int> q;
    q.push(start);
    island[start] = count;
    while (!q.empty()) {
      const int body = q.front();
      q.pop();
      for (const int other : next[body])
        if (island[other] < 0) {
          island[other] = count;
          q.push(other);
        }
    }
    ++count;
  }
  return island;
}

TEST(Islands, ComponentsNumberedBySmallestBodyInOriginalOrder) {
  std::mt19937 rng(7);
  IslandBuilder builder;  // reused, as the world reuses it step after step
  for (int trial = 0; trial < 200; ++trial) {
    const int nb = 1 + static_cast<int>(rng() % 300);
    std::vector<char> dynamic(nb);
    for (char& d : dynamic) d = rng() % 10 != 0;  // a tenth static (walls)
    // Chains and random links: long paths make deep union-find trees.
    std::vector<Contact> contacts;
    const int links = static_cast<int>(rng() % (2 * nb + 1));
    for (int k = 0; k < links; ++k) {
      Contact c;
      if (rng() % 3 == 0) {
        const int a = static_cast<int>(rng() % nb);
        c.a = nb - 1 - a;  // a chain running downwards in index
        c.b = a + 1 < nb ? nb - 2 - a : -1;
      } else {
        c.a = static_cast<int>(rng() % nb);
        c.b = rng() % 8 == 0 ? -1 : static_cast<int>(rng() % nb);
      }
      if (c.b >= 0 && c.b == c.a) c.b = -1;
      if (rng() % 2) std::swap(c.a, c.b);
      if (c.a < 0 && c.b < 0) c.a = 0;
      contacts.push_back(c);
    }
    std::vector<int> candidates;
    for (int k = 0; k < links; ++k) {
      const Contact& c = contacts[k];
      const bool any_dynamic = (c.a >= 0 && dynamic[c.a]) || (c.b >= 0 && dynamic[c.b]);
      if (any_dynamic && rng() % 5 != 0) candidates.push_back(k);
    }
    Islands out;
    builder.build(contacts, candidates, dynamic, out);
    const std::vector<int> island = reference_islands(contacts, candidates, dynamic);
    const int count = 1 + *std::max_element(island.begin(), island.end());
    ASSERT_EQ(out.count(), count) << "trial " << trial;
    for (int k = 0; k < count; ++k) {
      std::vector<int> bodies, mine;
      for (int b = 0; b < nb; ++b)
        if (island[b] == k) bodies.push_back(b);
      for (int s = out.body_start[k]; s < out.body_start[k + 1]; ++s)
        mine.push_back(out.body_order[s]);
      ASSERT_EQ(mine, bodies) << "trial " << trial << " island " << k;
      std::vector<int> owned, listed;
      for (const int ci : candidates) {
        const Contact& c = contacts[ci];
        const int body = c.a >= 0 && dynamic[c.a] ? c.a : c.b;
        if (island[body] == k) owned.push_back(ci);
      }
      for (int s = out.contact_start[k]; s < out.contact_start[k + 1]; ++s)
        listed.push_back(out.contact_order[s]);
      ASSERT_EQ(listed, owned) << "trial " << trial << " island " << k;
    }
  }
}

// The counting sort the islands (and the resting pass's per-body lists) are built with: each
// key's items in the order given, negative keys left out, keys without items empty; against a
// stable sort of the pairs on random input, twice into the same buffers.
TEST(GroupByKey, IsAStableCountingSortThatLeavesOutNegativeKeys) {
  std::mt19937 rng(7);
  std::vector<int> start, items, fill;
  for (int trial = 0; trial < 2; ++trial) {
    const int keys = 9;
    std::vector<std::pair<int, int>> pairs;  // (key, item); key 7 gets none
    for (int item = 0; item < 200; ++item) {
      const int key = static_cast<int>(rng() % (keys - 1));
      pairs.emplace_back(key == 7 ? 8 : key, item);
    }
    for (int k = 0; k < 20; ++k) pairs.emplace_back(-1 - k % 2, 1000 + k);
    std::shuffle(pairs.begin(), pairs.end(), rng);
    group_by_key(
        keys,
        [&](auto emit) {
          for (const auto& [key, item] : pairs) emit(key, item);
        },
        start, items, fill);
    std::vector<std::pair<int, int>> expect;
    for (const auto& p : pairs)
      if (p.first >= 0) expect.push_back(p);
    std::stable_sort(expect.begin(), expect.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    ASSERT_EQ(start.size(), static_cast<std::size_t>(keys) + 1);
    ASSERT_EQ(items.size(), expect.size());
    EXPECT_EQ(start[0], 0);
    EXPECT_EQ(start[7], start[8]);  // a key without items
    for (int key = 0; key < keys; ++key)
      for (int j = start[key]; j < start[key + 1]; ++j) {
        EXPECT_EQ(expect[static_cast<std::size_t>(j)].first, key);
        EXPECT_EQ(items[static_cast<std::size_t>(j)], expect[static_cast<std::size_t>(j)].second);
      }
  }
}

}  // namespace
}  // namespace etdem
