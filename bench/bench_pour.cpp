// Pour benchmark (a plain program, not a Google Benchmark): N spheres fall from a jittered simple
// cubic lattice into a closed box and settle. The same pour runs in LIGGGHTS
// (bench/peers/liggghts_pour.sh); bench/run_pour.sh runs both and reports the ratio.
//
//   bench_pour N [DURATION_S=1.0] [THREADS=0] [DT_S=1/600]
//
// BENCH_POUR_SLEEP=v in the environment lets regions slower than v [m/s] sleep (default: the
// settings' sleep_velocity, 0.01 m/s; 0 turns sleep off);
// BENCH_POUR_ITERATIONS=k sets the resting pass's sweeps per step (simulation.pgs.iterations);
// BENCH_POUR_LAYERS=k puts the grains in k layers on a footprint that grows with N (the same bed
// depth at every N) instead of the cubic lattice.
//
// THREADS = 0 leaves OpenMP's default. Prints one line:
//   etdem N=... wall_s=... us_per_particle_step=... contacts_per_s=... bed_height_m=...
//         steps=... iterations=... guards=... threads=... dt_s=... build_s=...
//         overlap_max_m=... overlap_mean_m=... overlap_pairs=...
// wall_s is the time-stepping loop only (as LIGGGHTS' "Loop time"); build_s is world building
// and initialize(); overlap_* are the grain-grain overlaps of the final state (a check that the
// bed height is not bought with interpenetration; LIGGGHTS prints the same). Progress goes to
// stderr every ~10 % of the steps, with the deepest contact since the line before. With
// BENCH_POUR_DUMP=path in the environment the final grain positions are written there
// ("x y z r" per line, metres); BENCH_POUR_BLOCK_CONTACTS=n sets
// simulation.pgs.block_contacts (0: every island in contact order). The last line on stderr
// gives the seconds per phase and the run's counts, and cpu_s, the process's CPU time over the
// loop (every thread).
//
// The lattice, the jitter and the bed height are those of bench/peers/pour_lattice.py, bit for
// bit: keep the two in step.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <limits>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

#include <omp.h>
#include <sys/resource.h>

#include "etdem/world/world.hpp"
#include "pour_lattice.hpp"
#include "resting_probe.hpp"

namespace {

/// Largest and mean overlap (2 r - distance) over the touching grain pairs of the final state
/// [m]; walls are left out. A uniform grid of cell 2 r over the box (clamped at its faces).
struct Overlap {
  double max = 0.0, mean = 0.0;
  long pairs = 0;
};
Overlap overlaps(const std::vector<etdem::Vec3>& x, const Geometry& g, double r) {
  const double cell = 2.0 * r;
  const int cx = static_cast<int>(std::ceil(g.side / cell)),
            cz = static_cast<int>(std::ceil(g.height / cell));
  auto idx = [&](double v, int n) {
    return std::clamp(static_cast<int>(std::floor(v / cell)), 0, n - 1);
  };
  std::vector<std::vector<int>> grid(static_cast<std::size_t>(cx) * cx * cz);
  auto at = [&](int i, int j, int k) -> std::vector<int>& {
    return grid[(static_cast<std::size_t>(k) * cx + j) * cx + i];
  };
  for (int a = 0; a < static_cast<int>(x.size()); ++a)
    at(idx(x[a].x(), cx), idx(x[a].y(), cx), idx(x[a].z(), cz)).push_back(a);
  Overlap o;
  double sum = 0.0;
  for (int a = 0; a < static_cast<int>(x.size()); ++a) {
    const int i = idx(x[a].x(), cx), j = idx(x[a].y(), cx), k = idx(x[a].z(), cz);
    for (int kk = std::max(0, k - 1); kk <= std::min(cz - 1, k + 1); ++kk)
      for (int jj = std::max(0, j - 1); jj <= std::min(cx - 1, j + 1); ++jj)
        for (int ii = std::max(0, i - 1); ii <= std::min(cx - 1, i + 1); ++ii)
          for (int b : at(ii, jj, kk)) {
            if (b <= a) continue;
            const double d = 2.0 * r - (x[a] - x[b]).norm();
            if (d > 0.0) {
              o.max = std::max(o.max, d);
              sum += d;
              ++o.pairs;
            }
          }
  }
  o.mean = o.pairs > 0 ? sum / static_cast<double>(o.pairs) : 0.0;
  return o;
}

/// The process's peak resident memory so far [MB].
double peak_rss_mb() {
  struct rusage u {};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in kB on Linux
}

/// The value of environment variable `name` (an integer for an integral T, else a number),
/// `fallback` when it is unset or empty; anything else, or a value outside [lo, hi], ends the
/// program with exit code 2, naming the variable.
template <class T>
T env_value(const char* name, T lo, T hi, T fallback) {
  const char* text = std::getenv(name);
  if (!text || !*text) return fallback;
  const char* last = text + std::strlen(text);
  T value{};
  const auto [end, ec] = std::from_chars(text, last, value);
  if (ec != std::errc() || end != last || !(value >= lo && value <= hi)) {
    if constexpr (std::is_integral_v<T>)
      std::fprintf(stderr, "%s: not an integer in [%lld, %lld]: '%s'\n", name,
                   static_cast<long long>(lo), static_cast<long long>(hi), text);
    else
      std::fprintf(stderr, "%s: not a number in [%g, %g]: '%s'\n", name, lo, hi, text);
    std::exit(2);
  }
  return value;
}

[[noreturn]] void usage(const char* argv0) {
  std::fprintf(stderr, "usage: %s N [DURATION_S=1.0] [THREADS=0] [DT_S=1/600]\n", argv0);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2 || argc > 5) usage(argv[0]);
  const long n = std::strtol(argv[1], nullptr, 10);
  const double duration = argc > 2 ? std::strtod(argv[2], nullptr) : 1.0;
  const int threads = argc > 3 ? static_cast<int>(std::strtol(argv[3], nullptr, 10)) : 0;
  const double dt = argc > 4 ? std::strtod(argv[4], nullptr) : 1.0 / 600.0;
  if (n <= 0 || !(duration > 0.0) || threads < 0 || !(dt > 0.0)) usage(argv[0]);

  using Clock = std::chrono::steady_clock;
  const auto t_build = Clock::now();

  // BENCH_POUR_LAYERS=k: k lattice layers on a footprint that grows with N (a bed of one depth
  // at every N, for the cost per grain-step across N), instead of the cubic lattice.
  const int layers = env_value("BENCH_POUR_LAYERS", 0, 1000000, 0);
  const Geometry g = geometry(n, layers);
  etdem::World world;
  world.settings.dt = dt;
  world.settings.threads = threads;
  // BENCH_POUR_SLEEP=v [m/s]: regions slower than v for 0.5 s sleep (WorldSettings; 0: off);
  // BENCH_POUR_SLEEP_ISLANDS=1: whole islands instead.
  world.settings.sleep_velocity =
      env_value("BENCH_POUR_SLEEP", 0.0, 1e3, world.settings.sleep_velocity);
  if (env_value("BENCH_POUR_SLEEP_ISLANDS", 0, 1, 0) != 0)
    world.settings.sleep_unit = etdem::SleepUnit::kIsland;
  // BENCH_POUR_WAKE_LOAD=f, BENCH_POUR_WAKE_ROUNDS=k: WorldSettings::sleep_wake_load, _rounds.
  world.settings.sleep_wake_load =
      env_value("BENCH_POUR_WAKE_LOAD", 0.0, 1e12, world.settings.sleep_wake_load);
  world.settings.sleep_wake_rounds =
      env_value("BENCH_POUR_WAKE_ROUNDS", 0, 100, world.settings.sleep_wake_rounds);
  // BENCH_POUR_MISSED=1: steps taken again split when the solve closes a pair the narrow phase
  // did not report (WorldSettings::substep_missed).
  world.settings.substep_missed =
      env_value("BENCH_POUR_MISSED", 0, 1, world.settings.substep_missed ? 1 : 0) != 0;
  // BENCH_POUR_SKIN=k: the speculative reach, a fraction of the radius
  // (WorldSettings::contact_skin).
  world.settings.contact_skin = env_value("BENCH_POUR_SKIN", 0.0, 1.0, world.settings.contact_skin);
  etdem::RestingSettings& pgs = world.settings.resting_pass;
  pgs.block_contacts = env_value("BENCH_POUR_BLOCK_CONTACTS", 0L, std::numeric_limits<long>::max(),
                                 pgs.block_contacts);
  pgs.iterations = env_value("BENCH_POUR_ITERATIONS", 1, 1000000, pgs.iterations);
  // BENCH_POUR_GRAPH=1: a large island swept in graph colours instead of blocks
  // (RestingSettings::colouring).
  if (env_value("BENCH_POUR_GRAPH", 0, 1, 0) != 0)
    pgs.colouring = etdem::BlockOrder::Colouring::kGraph;
  const std::vector<int> grains = build_pour(world, n, layers);
  using etdem::Vec3;
  world.initialize();
  resting_probe_bench::install();
  const double build_s = std::chrono::duration<double>(Clock::now() - t_build).count();

  const long steps = std::max(1L, std::lround(duration / dt));
  const long report_every = std::max(1L, steps / 10);
  const auto t0 = Clock::now();
  const std::clock_t cpu0 = std::clock();  // the process's CPU time, every thread
  double deepest = 0.0;  // [m] the deepest contact of any step (grain pairs and walls)
  double deepest_here = 0.0;  // [m] the same since the last progress line
  for (long s = 0; s < steps; ++s) {
    resting_probe_bench::probe_step(world.time());
    world.step();
    deepest = std::max(deepest, world.last_step().max_penetration);
    deepest_here = std::max(deepest_here, world.last_step().max_penetration);
    if ((s + 1) % report_every == 0 && s + 1 < steps) {
      const double el = std::chrono::duration<double>(Clock::now() - t0).count();
      std::fprintf(stderr,
                   "bench_pour: step %ld/%ld t=%.3f s wall=%.2f s contacts=%ld deepest_m=%.3g\n",
                   s + 1, steps, world.time(), el, world.last_step().contacts, deepest_here);
      deepest_here = 0.0;
    }
  }
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  const double cpu = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;

  std::vector<double> z;
  std::vector<Vec3> final_x;
  z.reserve(grains.size());
  final_x.reserve(grains.size());
  for (int b : grains) {
    z.push_back(world.bodies.position[b].z());
    final_x.push_back(world.bodies.position[b]);
  }
  double speed_max = 0.0, speed_sum = 0.0;  // [m/s] the grains' final speeds: is the bed at rest?
  for (int b : grains) {
    const double v = world.bodies.velocity[b].norm();
    speed_max = std::max(speed_max, v);
    speed_sum += v;
  }
  const double bed = bed_height(std::move(z), kRadius);
  const Overlap ov = overlaps(final_x, g, kRadius);
  if (const char* dump = std::getenv("BENCH_POUR_DUMP"); dump && *dump) {
    if (std::FILE* f = std::fopen(dump, "w")) {
      for (int b : grains) {
        const Vec3& x = world.bodies.position[b];
        std::fprintf(f, "%.17g %.17g %.17g %.17g\n", x.x(), x.y(), x.z(), kRadius);
      }
      std::fclose(f);
    } else {
      std::fprintf(stderr, "bench_pour: cannot write %s\n", dump);
    }
  }

  const etdem::RunTotals& tot = world.totals();
  const int used_threads = threads > 0 ? threads : omp_get_max_threads();
  std::printf(
      "etdem N=%ld wall_s=%.6g us_per_particle_step=%.6g contacts_per_s=%.6g bed_height_m=%.6f "
      "steps=%ld iterations=%ld guards=%ld threads=%d dt_s=%.6g build_s=%.3g "
      "overlap_max_m=%.3g overlap_mean_m=%.3g overlap_pairs=%ld\n",
      n, wall, wall * 1e6 / (static_cast<double>(n) * static_cast<double>(steps)),
      wall > 0.0 ? static_cast<double>(tot.contacts) / wall : 0.0, bed, steps,
      tot.solver.iterations, tot.solver.guards_fired, used_threads, dt, build_s, ov.max, ov.mean,
      ov.pairs);
  // Seconds per phase of the step (World::profile), one line on stderr: where the time goes.
  const etdem::StepProfile& prof = world.profile();
  std::fprintf(stderr, "bench_pour: phases");
  for (int k = 0; k < etdem::StepProfile::kPhases; ++k)
    std::fprintf(stderr, " %s=%.3f", etdem::StepProfile::kNames[k], prof.seconds[k]);
  std::fprintf(
      stderr,
      " resting_iterations=%ld resting_bound=%ld approaching_left=%ld "
      "pair_list_builds=%ld pair_list_updates=%ld"
      " asleep_steps=%ld fell_asleep=%ld woken=%ld speed_max=%.3g"
      " speed_mean=%.3g deepest_m=%.3g approaching_last_step=%ld peak_rss_mb=%.1f"
      " split_steps=%ld redone_steps=%ld layers=%d cpu_s=%.3f\n",
      tot.resting.iterations, tot.resting.guards_fired, tot.resting.approaching_left,
      tot.pair_list_builds, tot.pair_list_updates, tot.asleep_steps, tot.fell_asleep,
      tot.woken, speed_max, speed_sum / static_cast<double>(grains.size()), deepest,
      world.last_step().resting.approaching_left, peak_rss_mb(), tot.split_steps, tot.redone_steps,
      layers, cpu);
  resting_probe_bench::report();
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_pour: %s\n", e.what());
  return 1;
}
