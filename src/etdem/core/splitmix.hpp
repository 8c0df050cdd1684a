// A small deterministic generator (splitmix64) for geometry that must come out the same on every
// platform and in every run: surface node sampling, generated rocks. Uniform numbers in [0, 1)
// from the top 53 bits, as the fills do (io/fill.hpp).
#pragma once

#include <cstdint>

namespace etdem {

struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double operator()() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

}  // namespace etdem
