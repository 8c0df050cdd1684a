// The cost of the ledger's exact sums (core/exact_sum) against a plain loop, per term: what
// order-independent energies cost per body and step.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "etdem/core/exact_sum.hpp"

namespace {

std::vector<double> energies(std::size_t n) {
  std::mt19937_64 rng(3);
  std::lognormal_distribution<double> mag(-8.0, 3.0);  // grain energies, about 1e-7 to 1e-1 J
  std::vector<double> v(n);
  for (double& x : v) x = mag(rng);
  return v;
}

void PlainSum(benchmark::State& state) {
  const auto v = energies(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    double s = 0;
    for (double x : v) s += x;
    benchmark::DoNotOptimize(s);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void ExactSumOf(benchmark::State& state) {
  const auto v = energies(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    etdem::ExactSum s;
    for (double x : v) s += x;
    benchmark::DoNotOptimize(s.value());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

}  // namespace

BENCHMARK(PlainSum)->Arg(100000);
BENCHMARK(ExactSumOf)->Arg(100000);
BENCHMARK_MAIN();
