// Loops on every thread (core/parallel.hpp): an ordered selection gives the list a plain loop
// gives, on any thread count, appended after what the list already held; inside a parallel
// construct, even an inactive one, the loops open no region of their own.
#include <gtest/gtest.h>

#include <omp.h>

#include <random>
#include <utility>
#include <vector>

#include "etdem/core/parallel.hpp"

namespace etdem {
namespace {

TEST(ParallelSelect, TheOneLoopsListOnAnyThreadCount) {
  std::mt19937 rng(5);
  const int threads_before = omp_get_max_threads();
  // Below the length run on one thread and far above it; every share of kept elements.
  for (const std::size_t n : {std::size_t{100}, kParallelLength + 1, std::size_t{50'000}}) {
    for (const int keep_one_in : {1, 3, 1000, 100'000}) {
      std::vector<char> kept(n);
      for (char& k : kept) k = rng() % keep_one_in == 0;
      auto keep = [&](std::size_t i) { return kept[i] != 0; };
      std::vector<std::pair<int, int>> expected = {{-1, -1}};  // held before: kept in front
      for (std::size_t i = 0; i < n; ++i)
        if (kept[i]) expected.push_back({static_cast<int>(i), static_cast<int>(2 * i)});
      for (const int threads : {1, 2, 3}) {
        omp_set_num_threads(threads);
        std::vector<std::pair<int, int>> got = {{-1, -1}};
        parallel_select(
            n, keep,
            [](std::size_t i) {
              return std::pair<int, int>(static_cast<int>(i), static_cast<int>(2 * i));
            },
            got);
        EXPECT_EQ(got, expected) << "n " << n << ", one in " << keep_one_in << ", threads "
                                 << threads;
        std::vector<int> indices;
        parallel_select(n, keep, indices);
        ASSERT_EQ(indices.size() + 1, expected.size());
        for (std::size_t k = 0; k < indices.size(); ++k)
          EXPECT_EQ(indices[k], expected[k + 1].first);
      }
    }
  }
  omp_set_num_threads(threads_before);
}

// A region opened inside another (active or not) is nested, and libgomp starts its team's threads
// afresh each time: the loops must run on the calling thread there. Inside an inactive region
// (an if clause that is false) the body sees level 1; a nested region would show level 2.
TEST(ParallelLoops, OpenNoRegionInsideAnInactiveOne) {
  const int threads_before = omp_get_max_threads();
  omp_set_num_threads(2);
  const std::size_t n = 8 * kParallelLength;
  std::vector<int> level(n, -1), any_level(1, -1);
  bool inactive = false, runs_inside = true;
#pragma omp parallel if (inactive)
  {
    runs_inside = runs_parallel(n);  // what the loops written as regions of their own ask
    parallel_for(n, [&](std::size_t i) { level[i] = omp_get_level(); });
    parallel_any(n, [&](std::size_t i) {
      if (i == 0) any_level[0] = omp_get_level();
      return false;
    });
  }
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(level[i], 1) << "element " << i;
  EXPECT_EQ(any_level[0], 1);
  EXPECT_FALSE(runs_inside);
  EXPECT_TRUE(runs_parallel(n));
  EXPECT_FALSE(runs_parallel(kParallelLength - 1));
  // Outside any region the same loop runs on the team (level 1 with two threads).
  std::vector<int> outside(n, 0);
  parallel_for(n, [&](std::size_t i) { outside[i] = omp_get_num_threads(); });
  EXPECT_EQ(outside[0], 2);
  omp_set_num_threads(threads_before);
}

// A region of one thread still starts a team (libgomp allocates it on entry): a loop called
// many times a step (a colour's blocks in a team's sweep) asks threads_here() and loops on the
// calling thread when a region would have one thread or be nested.
TEST(ParallelLoops, ThreadsHereOnlyWhereARegionWouldHaveSeveral) {
  const int threads_before = omp_get_max_threads();
  omp_set_num_threads(1);
  EXPECT_FALSE(threads_here()) << "one thread: no region";
  omp_set_num_threads(2);
  EXPECT_TRUE(threads_here());
  bool inactive = false, inside = true;
#pragma omp parallel if (inactive)
  inside = threads_here();
  EXPECT_FALSE(inside) << "inside a region, active or not: a nested one would start afresh";
  omp_set_num_threads(threads_before);
}

}  // namespace
}  // namespace etdem
