// The sphere pour of bench_pour split over P ranks that are threads of one process
// (distributed/local_transport): the work of a split run without MPI, whose waiting ranks poll.
// Under callgrind its instruction count is the work of every rank, stable from run to run, so two
// versions of the split step compare by it on a machine whose timings drift (bench/README.md,
// "Runs split over ranks").
//
//   bench_split_local N DURATION_S RANKS [SHARED=0] [BLOCK_CONTACTS]
//
// SHARED = 1 solves a pile's island with every rank together (simulation.share_islands);
// BLOCK_CONTACTS sets simulation.pgs.block_contacts (default: the settings' own), so that the
// pile of a small pour is swept by blocks. One thread per rank; the boxes are not drawn again
// for the ranks' busy times. Prints one line:
//   bench_split_local N=... ranks=... shared=... steps=... wall_s=... state=HASH
//         islands_shared=... groups_shared=... contacts_kept=... sent_whole=... bytes=...
// where HASH is an FNV-1a hash of the grains' final positions and velocities: the same on any
// rank count, shared or not (the split run's bits are the serial run's).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>

#include "etdem/distributed/decomposed_world.hpp"
#include "etdem/distributed/local_transport.hpp"
#include "pour_lattice.hpp"

namespace {

using etdem::Vec3;

std::uint64_t state_hash(const etdem::World& w) {
  std::uint64_t h = 1469598103934665603ULL;
  auto mix = [&](const Vec3& v) {
    unsigned char bytes[sizeof(double)];
    for (int d = 0; d < 3; ++d) {
      const double x = v[d];
      std::memcpy(bytes, &x, sizeof x);
      for (const unsigned char b : bytes) h = (h ^ b) * 1099511628211ULL;
    }
  };
  for (int i = 0; i < w.bodies.count(); ++i) {
    mix(w.bodies.position[i]);
    mix(w.bodies.velocity[i]);
  }
  return h;
}

[[noreturn]] void usage(const char* argv0) {
  std::fprintf(stderr, "usage: %s N DURATION_S RANKS [SHARED=0] [BLOCK_CONTACTS]\n", argv0);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 4 || argc > 6) usage(argv[0]);
  const long n = std::strtol(argv[1], nullptr, 10);
  const double duration = std::strtod(argv[2], nullptr);
  const int ranks = static_cast<int>(std::strtol(argv[3], nullptr, 10));
  const bool shared = argc > 4 && std::strtol(argv[4], nullptr, 10) != 0;
  const long block_contacts = argc > 5 ? std::strtol(argv[5], nullptr, 10) : -1;
  if (n <= 0 || !(duration > 0.0) || ranks < 1 || ranks > 64 || (argc > 5 && block_contacts < 0))
    usage(argv[0]);
  const double dt = 1.0 / 600.0;
  const long steps = std::max(1L, std::lround(duration / dt));
  std::uint64_t hash = 0;
  long islands_shared = 0, groups_shared = 0, contacts_kept = 0, sent_whole = 0, bytes = 0;
  std::mutex m;
  const auto t0 = std::chrono::steady_clock::now();
  etdem::distributed::run_local_ranks(ranks, [&](etdem::distributed::Transport& t) {
    etdem::World full;
    full.settings.dt = dt;
    full.settings.threads = 1;
    // The boxes are drawn again for the work alone: a decision from the ranks' timings would
    // change the instruction count from run to run.
    full.settings.rebalance_busy_imbalance = 0.0;
    if (block_contacts >= 0) full.settings.resting_pass.block_contacts = block_contacts;
    build_pour(full, n);
    full.initialize();
    etdem::distributed::DecomposedWorld split(full, t);
    split.set_shared_islands(shared);
    for (long s = 0; s < steps; ++s) split.step();
    split.gather(full);
    const long is = t.sum(split.stats().islands_shared);
    const long gs = t.sum(split.stats().groups_shared);
    const long kept = t.sum(split.stats().contacts_kept_local);
    const long whole = t.sum(split.stats().islands_sent_whole);
    const long sent = t.sum(t.counters().bytes);
    if (t.rank() != 0) return;
    std::lock_guard lock(m);
    hash = state_hash(full);
    islands_shared = is;
    groups_shared = gs;
    contacts_kept = kept;
    sent_whole = whole;
    bytes = sent;
  });
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "bench_split_local N=%ld ranks=%d shared=%d steps=%ld wall_s=%.3f state=%016llx "
      "islands_shared=%ld groups_shared=%ld contacts_kept=%ld sent_whole=%ld bytes=%ld\n",
      n, ranks, shared ? 1 : 0, steps, wall, static_cast<unsigned long long>(hash), islands_shared,
      groups_shared, contacts_kept, sent_whole, bytes);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_split_local: %s\n", e.what());
  return 1;
}
