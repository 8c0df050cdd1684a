// Loops over bodies that each add to a few exact sums (energy terms of the ledger): the bodies
// are shared among the threads, each thread adds into sums of its own, and the threads' sums
// are merged. An exact sum does not depend on the order of its terms, so the totals are the
// same bits on any thread count.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include <omp.h>

#include "etdem/core/exact_sum.hpp"
#include "etdem/core/parallel.hpp"

namespace etdem {

/// Calls f(i, sums) for every i < n, sums being an array of K exact sums of the calling
/// thread (f writes only index i's own data); returns the K totals.
template <std::size_t K, class F>
std::array<ExactSum, K> parallel_sums(std::size_t n, F&& f) {
  std::array<ExactSum, K> total{};
  if (!runs_parallel(n) || omp_get_max_threads() == 1) {
    for (std::size_t i = 0; i < n; ++i) f(i, total);
    return total;
  }
  std::vector<std::array<ExactSum, K>> of_thread(static_cast<std::size_t>(omp_get_max_threads()));
  const long count = static_cast<long>(n);
#pragma omp parallel
  {
    std::array<ExactSum, K>& mine = of_thread[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(static)
    for (long i = 0; i < count; ++i) f(static_cast<std::size_t>(i), mine);
  }
  for (const auto& sums : of_thread)
    for (std::size_t k = 0; k < K; ++k) total[k].add(sums[k]);
  return total;
}

}  // namespace etdem
