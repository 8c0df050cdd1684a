// Loops whose iterations are independent: each writes only its own index's data and reads
// nothing another iteration writes. Long ones run on every thread (outside a parallel region);
// the result is the same bits on any thread count.
#pragma once

#include <cstddef>
#include <vector>

#include <omp.h>

namespace etdem {

/// Loops shorter than this run on the calling thread (waking the team costs more).
inline constexpr std::size_t kParallelLength = 1024;

/// Calls f(i) for every i < n; on one thread when n < `shortest` (items of more work than one
/// element, such as chunks, pass a smaller bound).
template <class F>
void parallel_for(std::size_t n, F&& f, std::size_t shortest = kParallelLength) {
  if (n < shortest || omp_in_parallel()) {
    for (std::size_t i = 0; i < n; ++i) f(i);
    return;
  }
  const long count = static_cast<long>(n);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < count; ++i) f(static_cast<std::size_t>(i));
}

/// Whether pred(i) holds for some i < n (on every thread when n is long).
template <class P>
bool parallel_any(std::size_t n, P&& pred) {
  if (n < kParallelLength || omp_in_parallel()) {
    for (std::size_t i = 0; i < n; ++i)
      if (pred(i)) return true;
    return false;
  }
  const long count = static_cast<long>(n);
  bool any = false;
#pragma omp parallel for schedule(static) reduction(|| : any)
  for (long i = 0; i < count; ++i) any = any || pred(static_cast<std::size_t>(i));
  return any;
}

/// Appends to `out` the indices i < n for which keep(i) holds, ascending. On every thread when
/// n is long: each thread selects from a contiguous range and the ranges are joined in order, so
/// the list is the same on any thread count.
template <class P>
void parallel_select(std::size_t n, P&& keep, std::vector<int>& out) {
  if (n < kParallelLength || omp_in_parallel() || omp_get_max_threads() == 1) {
    for (std::size_t i = 0; i < n; ++i)
      if (keep(i)) out.push_back(static_cast<int>(i));
    return;
  }
  std::vector<std::vector<int>> found(static_cast<std::size_t>(omp_get_max_threads()));
#pragma omp parallel
  {
    const std::size_t t = static_cast<std::size_t>(omp_get_thread_num());
    const std::size_t team = static_cast<std::size_t>(omp_get_num_threads());
    for (std::size_t i = n * t / team; i < n * (t + 1) / team; ++i)
      if (keep(i)) found[t].push_back(static_cast<int>(i));
  }
  for (const std::vector<int>& f : found) out.insert(out.end(), f.begin(), f.end());
}

}  // namespace etdem
