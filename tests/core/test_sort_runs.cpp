// A stable sort for a few sorted lists laid end to end (core/sort_runs.hpp): it must give the
// order std::stable_sort gives, ties included, whatever the number and length of the runs, since
// the contacts' order is part of a run's trajectory.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "etdem/core/sort_runs.hpp"
#include "etdem/world/contact_order.hpp"

namespace etdem {
namespace {

struct Item {
  int key;
  int place;  // its place in the input: tells ties apart
  bool operator==(const Item&) const = default;
};

std::vector<Item> runs_of(int runs, int length, int keys, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> key(0, keys - 1), len(0, length);
  std::vector<Item> items;
  for (int r = 0; r < runs; ++r) {
    std::vector<int> run(static_cast<std::size_t>(len(rng)));
    for (int& k : run) k = key(rng);
    std::sort(run.begin(), run.end());
    for (int k : run) items.push_back({k, static_cast<int>(items.size())});
  }
  return items;
}

TEST(SortRuns, GivesStableSortsOrderForAnyNumberOfRuns) {
  auto by_key = [](const Item& x, const Item& y) { return x.key < y.key; };
  for (int runs : {0, 1, 2, 3, 5, 8, 63, 64, 65, 200}) {
    for (int keys : {3, 1000}) {  // many ties, few ties
      SCOPED_TRACE("runs " + std::to_string(runs) + " keys " + std::to_string(keys));
      std::vector<Item> items = runs_of(runs, 40, keys, static_cast<unsigned>(runs * 7 + keys));
      std::vector<Item> want = items;
      std::stable_sort(want.begin(), want.end(), by_key);
      std::vector<Item> merged = items, buffer;
      const bool few = merge_sorted_runs(merged, by_key, buffer, 64);
      EXPECT_EQ(merged, few ? want : items);  // or left as it was
      EXPECT_TRUE(few || runs > 64);
      stable_sort_runs(items, by_key);
      EXPECT_EQ(items, want);
    }
  }
}

TEST(SortRuns, TheContactsSerialOrderIsTheStableSortsByKey) {
  // Parts of an island from several ranks, each in serial order (its pairs, then its walls),
  // and random lists: stable_order gives std::stable_sort's places.
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> body(0, 30), part(1, 6);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<ContactOrderKey> keys;
    const int parts = trial < 20 ? part(rng) : 0;
    for (int p = 0; p < parts; ++p) {
      std::vector<ContactOrderKey> mine(static_cast<std::size_t>(body(rng)));
      for (ContactOrderKey& k : mine) k = {body(rng) % 4 == 0, body(rng), body(rng)};
      std::sort(mine.begin(), mine.end());
      keys.insert(keys.end(), mine.begin(), mine.end());
    }
    if (parts == 0)
      for (int k = 0; k < 150; ++k) keys.push_back({body(rng) % 3 == 0, body(rng), body(rng)});
    std::vector<int> want(keys.size());
    for (std::size_t k = 0; k < want.size(); ++k) want[k] = static_cast<int>(k);
    std::stable_sort(want.begin(), want.end(), [&](int x, int y) { return keys[x] < keys[y]; });
    std::vector<int> got;
    stable_order(keys, got);
    EXPECT_EQ(got, want) << "trial " << trial;
  }
}

}  // namespace
}  // namespace etdem
