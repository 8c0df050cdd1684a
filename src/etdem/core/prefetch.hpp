// A hint to the cache that memory will be read soon (it changes no value). The compiler's own
// builtin is dropped with a loop that does nothing else, so on x86-64 the instruction is
// written out.
#pragma once

#include <cstddef>
#include <cstdint>

namespace etdem {

inline void prefetch(const void* p) {
#if defined(__x86_64__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
#endif
}

/// How many places ahead a pass over contacts read through a list of their indices (so lying
/// apart in memory) fetches the one it will read: the resting pass's rows built from an
/// island's contacts, a split run's passes over a rank's contacts of its islands.
constexpr std::size_t kContactsAhead = 8;

/// prefetch() of every cache line of [p, p + bytes).
inline void prefetch_range(const void* p, std::size_t bytes) {
  constexpr std::uintptr_t kLine = 64;
  const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(p) & ~(kLine - 1);
  const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(p) + bytes;
  for (std::uintptr_t a = first; a < end; a += kLine) prefetch(reinterpret_cast<const void*>(a));
}

}  // namespace etdem
