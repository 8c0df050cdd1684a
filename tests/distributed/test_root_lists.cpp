// Items grouped by island root (distributed/root_lists.hpp): against a std::map of vectors built
// the plain way, for random items, over several builds in the same room.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <stdexcept>
#include <vector>

#include "etdem/distributed/root_lists.hpp"

namespace etdem::distributed {
namespace {

TEST(RootLists, EachRootsItemsInTheirOrderTheRootsAscendingBuildAfterBuild) {
  std::mt19937 rng(7);
  RootLists lists;
  for (int build = 0; build < 20; ++build) {
    // Items whose roots come in runs (as consecutive candidates mostly lie in one island) and
    // jump about, among a few or many roots; one build with no item at all.
    const std::int64_t ids = build % 2 == 0 ? 50 : 5000;
    const std::size_t count = build == 3 ? 0 : 1 + rng() % 3000;
    std::vector<std::int64_t> root(count);
    std::int64_t r = 0;
    for (std::size_t j = 0; j < count; ++j) {
      if (rng() % 4 == 0) r = static_cast<std::int64_t>(rng() % static_cast<unsigned>(ids));
      root[j] = r;
    }
    std::map<std::int64_t, std::vector<int>> expected;
    for (std::size_t j = 0; j < count; ++j)
      expected[root[j]].push_back(static_cast<int>(1000 * j + 1));
    lists.build(
        count, ids, [&](std::size_t j) { return root[j]; },
        [&](std::size_t j) { return static_cast<int>(1000 * j + 1); });
    ASSERT_EQ(lists.size(), expected.size()) << "build " << build;
    std::size_t k = 0;
    for (const auto& [want_root, want] : expected) {
      EXPECT_EQ(lists.root(k), want_root);
      const std::span<const int> got = lists.list(k);
      EXPECT_EQ(std::vector<int>(got.begin(), got.end()), want) << "root " << want_root;
      EXPECT_EQ(lists.find(want_root), k);
      EXPECT_EQ(lists.at(want_root).data(), got.data());
      ++k;
    }
    // A root without items has no list.
    for (std::int64_t id = 0; id < ids; ++id)
      if (!expected.contains(id)) {
        EXPECT_EQ(lists.find(id), lists.size());
        EXPECT_THROW(lists.at(id), std::logic_error);
        break;
      }
  }
}

TEST(RootLists, ARootOutsideTheWorldsIdsIsRefused) {
  RootLists lists;
  const std::vector<std::int64_t> root{0, 3, 10};
  EXPECT_THROW(lists.build(
                   root.size(), 10, [&](std::size_t j) { return root[j]; },
                   [](std::size_t j) { return static_cast<int>(j); }),
               std::logic_error);
  const std::vector<std::int64_t> negative{-1};
  EXPECT_THROW(lists.build(
                   negative.size(), 10, [&](std::size_t j) { return negative[j]; },
                   [](std::size_t j) { return static_cast<int>(j); }),
               std::logic_error);
  // A refused build leaves no root marked: the next one groups as if it were the first.
  const std::vector<std::int64_t> fine{3, 0, 3};
  lists.build(
      fine.size(), 10, [&](std::size_t j) { return fine[j]; },
      [](std::size_t j) { return static_cast<int>(j); });
  ASSERT_EQ(lists.size(), 2u);
  EXPECT_EQ(lists.root(0), 0);
  EXPECT_EQ(std::vector<int>(lists.list(1).begin(), lists.list(1).end()), (std::vector<int>{0, 2}));
}

}  // namespace
}  // namespace etdem::distributed
