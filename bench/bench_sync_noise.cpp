// The machine's noise at a synchronisation (bench/README.md "Runs split over ranks"): every rank
// does the same work between syncs, so any wait at a sync is noise (the system taking a core for
// a while, a cache or frequency hiccup), not imbalance. For each interval the ranks measure the
// time each phase of work took; from those samples, the expected wait of a rank that must hear
// from k others before it goes on is E[max of k + 1 phases] - E[one phase] (the phases taken as
// independent draws of the measured distribution). bench/mpi_model.py reads the table (its
// "noise" term). Over MPI, one line per interval and group size k on stdout (CSV):
//
//   mpirun -np 2 bench_sync_noise [SECONDS_PER_INTERVAL] > bench/results/sync_noise.csv
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

// A fixed amount of arithmetic (a dependent chain: no vectorisation, the same on every rank).
double spin(long n) {
  double x = 1.0;
  for (long i = 0; i < n; ++i) x = x * 1.0000001 + 1e-9;
  return x;
}

// Iterations of spin() that take `seconds` on this rank, told by rank 0 to every rank.
long calibrate(double seconds) {
  long n = 1000;
  for (int rounds = 0; rounds < 40; ++rounds) {
    const double start = MPI_Wtime();
    volatile double sink = spin(n);
    (void)sink;
    const double took = MPI_Wtime() - start;
    if (took > 0.05) {
      n = static_cast<long>(static_cast<double>(n) * seconds / took);
      break;
    }
    n *= 4;
  }
  MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  return std::max(n, 1L);
}

// E[max of k independent draws] from the sorted samples x (the empirical distribution).
double expected_max(const std::vector<double>& x, int k) {
  const double n = static_cast<double>(x.size());
  double e = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double hi = std::pow(static_cast<double>(i + 1) / n, k);
    const double lo = std::pow(static_cast<double>(i) / n, k);
    e += x[i] * (hi - lo);
  }
  return e;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const double per_interval = argc > 1 ? std::atof(argv[1]) : 5.0;  // [s] of phases per interval
  if (!(per_interval > 0.0) || per_interval > 3600.0) {
    if (rank == 0)
      std::fprintf(stderr, "bench_sync_noise: SECONDS_PER_INTERVAL %s: not in (0, 3600]\n",
                   argv[1]);
    MPI_Finalize();
    return 2;
  }
  if (rank == 0) {
    std::printf("# The noise at a sync on this machine: %d ranks, the same work between syncs",
                size);
    std::fputs(R"( (a
# neighbour exchange, MPI_Sendrecv with the next and previous rank); per interval the
# mean phase, the mean wait measured at the syncs, and the expected wait of a rank
# that must hear from k others, E[max of k + 1 phases] - E[phase], from the phases'
# distribution over every rank. bench/bench_sync_noise.cpp; bench/mpi_model.py reads it.
interval_us,phase_mean_us,phases,measured_wait_us,k,expected_wait_us
)",
               stdout);
  }
  const int next = (rank + 1) % size, previous = (rank + size - 1) % size;
  for (const double interval : {10e-6, 30e-6, 100e-6, 300e-6, 1000e-6}) {
    const long n = calibrate(interval);
    const long phases = std::clamp(static_cast<long>(per_interval / interval), 100L, 2000000L);
    std::vector<double> took(static_cast<std::size_t>(phases));
    double waited = 0.0, sink = 0.0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (long p = 0; p < phases; ++p) {
      const double a = MPI_Wtime();
      sink += spin(n);
      const double b = MPI_Wtime();
      char out = 0, in = 0;
      if (size > 1)
        MPI_Sendrecv(&out, 1, MPI_CHAR, next, 0, &in, 1, MPI_CHAR, previous, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
      waited += MPI_Wtime() - b;
      took[static_cast<std::size_t>(p)] = b - a;
    }
    // Every rank's phases to rank 0, which sorts them and writes the table.
    std::vector<double> all(rank == 0 ? took.size() * static_cast<std::size_t>(size) : 0);
    MPI_Gather(took.data(), static_cast<int>(took.size()), MPI_DOUBLE, all.data(),
               static_cast<int>(took.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    double waited_all = 0.0;
    MPI_Reduce(&waited, &waited_all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      std::sort(all.begin(), all.end());
      double mean = 0.0;
      for (const double t : all) mean += t;
      mean /= static_cast<double>(all.size());
      const double measured = waited_all / static_cast<double>(size) / static_cast<double>(phases);
      for (const int k : {1, 2, 8, 26, 64, 512})
        std::printf("%.0f,%.3f,%ld,%.3f,%d,%.3f\n", interval * 1e6, mean * 1e6, phases,
                    measured * 1e6, k, (expected_max(all, k + 1) - mean) * 1e6);
    }
    if (sink == 42.0) std::printf("#\n");  // (keeps the work)
  }
  MPI_Finalize();
  return 0;
}
