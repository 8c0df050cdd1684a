// core/stable_order.hpp: indices by key with equal keys in index order, the one order the warm
// start's search of last step's contacts may depend on (docs/design.md "Determinism").

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "etdem/core/stable_order.hpp"

namespace {

// The definition, by the library's stable sort.
std::vector<int> reference(const std::vector<std::uint64_t>& keys) {
  std::vector<int> order(keys.size());
  for (std::size_t k = 0; k < keys.size(); ++k) order[k] = static_cast<int>(k);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return keys[x] < keys[y]; });
  return order;
}

// `runs` ascending runs of keys drawn from few values, so that ties within and across runs abound.
std::vector<std::uint64_t> runs_of_keys(std::mt19937_64& rng, int runs, int length, int values) {
  std::uniform_int_distribution<int> pick(0, values - 1);
  std::vector<std::uint64_t> keys;
  for (int r = 0; r < runs; ++r) {
    std::vector<std::uint64_t> run(static_cast<std::size_t>(length));
    for (auto& k : run) k = static_cast<std::uint64_t>(pick(rng)) << 32;
    std::sort(run.begin(), run.end());
    keys.insert(keys.end(), run.begin(), run.end());
  }
  return keys;
}

}  // namespace

TEST(StableOrder, MergedRunsGiveTheStableOrder) {
  std::mt19937_64 rng(7);
  etdem::StableOrderScratch scratch;
  std::vector<int> order;
  for (int runs : {1, 2, 3, 5, 8, 64}) {
    const std::vector<std::uint64_t> keys = runs_of_keys(rng, runs, 97, 40);
    etdem::stable_order(keys, order, scratch);
    EXPECT_EQ(order, reference(keys)) << runs << " runs";
  }
}

TEST(StableOrder, ManyRunsTakeTheSortAndGiveTheSameOrder) {
  std::mt19937_64 rng(11);
  etdem::StableOrderScratch scratch;
  std::vector<int> merged, sorted;
  const std::vector<std::uint64_t> keys = runs_of_keys(rng, 300, 7, 25);
  etdem::stable_order(keys, merged, scratch, 1000);  // merged in rounds
  etdem::stable_order(keys, sorted, scratch, 4);     // std::stable_sort
  EXPECT_EQ(merged, reference(keys));
  EXPECT_EQ(sorted, merged);
}

TEST(StableOrder, EqualKeysKeepTheirIndexOrder) {
  // Two pairs' points in two runs: (0, 1) twice in the first, once in the second.
  const std::vector<std::uint64_t> keys = {1, 1, 2, 0, 1};
  etdem::StableOrderScratch scratch;
  std::vector<int> order;
  etdem::stable_order(keys, order, scratch);
  EXPECT_EQ(order, (std::vector<int>{3, 0, 1, 4, 2}));
  etdem::stable_order(std::vector<std::uint64_t>{}, order, scratch);
  EXPECT_TRUE(order.empty());
}
