// The resting pass's convergence, sweep by sweep (etdem::resting_probe), for bench programs.
//
//   RESTING_PROBE=1           at the end, per sweep set (0: before the shock pass, 1: the shock
//                             pass, 2 on: the rounds after it) and sweep: how many island-sweeps
//                             reached it, the contacts left approaching after it (mean), those
//                             faster than 1 mm/s (mean) and the fastest (max), over islands of
//                             at least RESTING_PROBE_MIN contacts (default 1000)
//   RESTING_PROBE=FROM,TO     the same over the steps between FROM and TO [s] only, and every
//                             sweep of those islands printed
//
// Call probe_step(t) before every step. Only the diagnostic reads it: no velocity changes.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>

#include "etdem/solvers/resting.hpp"

namespace resting_probe_bench {

struct Row {
  long count = 0;
  double approaching = 0.0, faster = 0.0, fastest = 0.0;
};
struct State {
  bool on = false, window = false;
  double from = 1e300, to = -1e300, now = 0.0;
  long min_contacts = 1000;
  std::map<std::pair<int, int>, Row> rows;
  std::mutex mutex;
};
inline State& state() {
  static State s;
  return s;
}

inline void hook(const etdem::RestingProbe& p) {
  State& s = state();
  if (p.island < s.min_contacts) return;
  std::lock_guard<std::mutex> lock(s.mutex);
  Row& r = s.rows[{p.set, p.sweep}];
  ++r.count;
  r.approaching += static_cast<double>(p.approaching);
  r.faster += static_cast<double>(p.faster_1mm);
  r.fastest = std::max(r.fastest, p.fastest);
  if (s.window)
    std::printf(
        "probe t %.4f set %d sweep %2d island %ld swept %ld approaching %ld >1mm/s %ld "
        "fastest %.4g m/s%s\n",
        s.now, p.set, p.sweep, p.island, p.swept, p.approaching, p.faster_1mm, p.fastest,
        p.converged ? " converged" : "");
}

/// Installs the hook when RESTING_PROBE is set.
inline void install() {
  const char* env = std::getenv("RESTING_PROBE");
  if (!env || !*env) return;
  State& s = state();
  s.on = true;
  double a = 0.0, b = 0.0;
  if (std::sscanf(env, "%lf,%lf", &a, &b) == 2) s.window = true, s.from = a, s.to = b;
  if (const char* m = std::getenv("RESTING_PROBE_MIN")) s.min_contacts = std::atol(m);
  etdem::resting_probe = &hook;
}

/// Before every step: the hook is installed over the window only (it costs about a sweep).
inline void probe_step(double t) {
  State& s = state();
  s.now = t;
  if (s.on && s.window) etdem::resting_probe = t >= s.from && t <= s.to ? &hook : nullptr;
}

inline void report() {
  State& s = state();
  if (!s.on) return;
  std::printf(
      "resting probe (islands of >= %ld contacts): set sweep reached mean_approaching "
      "mean_faster_1mm fastest_m_s\n",
      s.min_contacts);
  for (const auto& [key, r] : s.rows)
    std::printf("  %d %2d %8ld %10.1f %10.1f %.4g\n", key.first, key.second, r.count,
                r.approaching / static_cast<double>(r.count),
                r.faster / static_cast<double>(r.count), r.fastest);
}

}  // namespace resting_probe_bench
