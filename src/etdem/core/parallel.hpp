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

/// Whether the caller is inside a parallel construct, active or not (omp_in_parallel() answers
/// for active ones only). A region opened there would be nested: libgomp reuses its pool of
/// threads only for the outermost level and starts each nested region's team afresh, tens of
/// microseconds where a region of the outermost level takes about one (docs/notes/threads.md,
/// "Regions inside an inactive region"). Loops inside any construct therefore run on the
/// calling thread.
inline bool inside_parallel() {
  return omp_get_level() > 0;
}

/// The shortest loop of whole pair tests (a narrow-phase call or a broad-phase cell each) run on
/// every thread: each item is worth more than an element of the loops above.
inline constexpr std::size_t kParallelPairs = 512;

/// Whether a region opened here would have more than one thread: a region of one thread still
/// allocates its team on entry, which a loop called often (a colour's blocks) should not pay.
inline bool threads_here() {
  return omp_get_max_threads() > 1 && !inside_parallel();
}

/// Whether a loop of n items runs on every thread: at least `shortest` of them, and not inside
/// another construct. The one test of the loops below and of the loops written as OpenMP
/// regions of their own (reductions, per-thread lists): `#pragma omp parallel if
/// (runs_parallel(n))`.
inline bool runs_parallel(std::size_t n, std::size_t shortest = kParallelLength) {
  return n >= shortest && !inside_parallel();
}

/// Calls f(i) for every i < n; on one thread when n < `shortest` (items of more work than one
/// element, such as chunks, pass a smaller bound).
template <class F>
void parallel_for(std::size_t n, F&& f, std::size_t shortest = kParallelLength) {
  if (!runs_parallel(n, shortest)) {
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
  if (!runs_parallel(n)) {
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

/// Appends make(i) to `out` for every i < n for which keep(i) holds, ascending in i. On every
/// thread when n is long: each thread counts what it keeps of a contiguous range, then writes it
/// at its range's offset (keep is called twice per index), so the list is the same on any thread
/// count and nothing is allocated but `out`.
template <class T, class Keep, class Make>
void parallel_select(std::size_t n, Keep&& keep, Make&& make, std::vector<T>& out) {
  if (!runs_parallel(n) || omp_get_max_threads() == 1) {
    for (std::size_t i = 0; i < n; ++i)
      if (keep(i)) out.push_back(make(i));
    return;
  }
  const std::size_t base = out.size();
  std::vector<std::size_t> start(static_cast<std::size_t>(omp_get_max_threads()) + 1, 0);
#pragma omp parallel
  {
    const std::size_t t = static_cast<std::size_t>(omp_get_thread_num());
    const std::size_t team = static_cast<std::size_t>(omp_get_num_threads());
    const std::size_t lo = n * t / team, hi = n * (t + 1) / team;
    std::size_t count = 0;
    for (std::size_t i = lo; i < hi; ++i) count += keep(i) ? 1 : 0;
    start[t + 1] = count;
#pragma omp barrier
#pragma omp single
    {
      for (std::size_t k = 0; k < team; ++k) start[k + 1] += start[k];
      out.resize(base + start[team]);
    }
    std::size_t at = base + start[t];
    for (std::size_t i = lo; i < hi; ++i)
      if (keep(i)) out[at++] = make(i);
  }
}

/// Appends to `out` the indices i < n for which keep(i) holds, ascending (as above).
template <class Keep>
void parallel_select(std::size_t n, Keep&& keep, std::vector<int>& out) {
  parallel_select(
      n, keep, [](std::size_t i) { return static_cast<int>(i); }, out);
}

}  // namespace etdem
