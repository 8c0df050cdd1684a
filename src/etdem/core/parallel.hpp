// Loops whose iterations are independent: each writes only its own index's data and reads
// nothing another iteration writes. Long ones run on every thread (outside a parallel region);
// the result is the same bits on any thread count.
#pragma once

#include <cstddef>

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

}  // namespace etdem
