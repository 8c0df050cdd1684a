// Solver benchmark (a plain program): the same pile snapshots resolved by every solver.
//
//   bench_solvers [N=10000] [STEPS=30] [THREADS=1] [MODES=collisions,all] [SOLVERS=all]
//
// SOLVERS: a comma-separated subset of the solver names (default every solver).
//
// Three snapshots of the pour of bench_pour (N spheres falling into a closed box, dt = 1/600 s):
//   pour     t = 0.15 s, the lower layers are landing on the floor and on each other;
//   settled  t = 1.00 s, the bed is at rest;
//   flow     t = 1.25 s, the wall x1 was removed at t = 1.01 s and the bed slumps out of the box.
// At each snapshot one step's islands are recorded exactly as the world hands them to the
// collision solver, in two modes:
//   collisions  the hybrid default (resting = "pgs"): only contacts approaching faster than the
//               resting velocity reach the solver;
//   all         resting = "etm": every contact that would close within the step reaches the
//               solver (slow ones with e = 0), the paper's treatment of a pile.
// Every solver then resolves the same recorded islands, one thread: wall time of resolve()
// alone, impulses, rounds, guards, energy dissipated (restitution, friction, truncated), and the
// contacts still approaching afterwards (u_n < -1e-4 of the island's fastest initial approach,
// measured here, not taken from the solver). Finally every solver runs STEPS full world steps
// from each snapshot (hybrid mode): wall time per step.
//
// Prints one line per measurement ("solvers snapshot=... mode=... solver=... key=value ...").
// bench/run_solvers.sh appends them to bench/results/solvers.csv.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "etdem/solvers/impulse.hpp"
#include "etdem/world/solver_registry.hpp"
#include "etdem/world/world.hpp"
#include "pour_lattice.hpp"

namespace {

using etdem::Contact;
using etdem::IslandBodies;
using etdem::Mat3;
using etdem::Solver;
using etdem::SolverStats;
using etdem::Vec3;
using Clock = std::chrono::steady_clock;

/// One island exactly as a solver received it.
struct Problem {
  std::vector<Contact> contacts;
  std::vector<Vec3> v, w;
  std::vector<double> inv_mass;
  std::vector<Mat3> inv_inertia;
};

/// Passes every call through to `inner`; while armed, copies each island first.
class Recorder final : public Solver {
 public:
  Recorder(std::unique_ptr<Solver> inner, std::vector<Problem>* sink)
      : inner_(std::move(inner)), sink_(sink) {}
  const char* name() const override { return inner_->name(); }
  void prepare(int threads) override { inner_->prepare(threads); }
  SolverStats resolve(std::span<Contact> contacts, IslandBodies& b, int thread) override {
    if (armed) {
      Problem p;
      p.contacts.assign(contacts.begin(), contacts.end());
      p.v.assign(b.v, b.v + b.count);
      p.w.assign(b.w, b.w + b.count);
      p.inv_mass.assign(b.inv_mass, b.inv_mass + b.count);
      p.inv_inertia.assign(b.inv_inertia, b.inv_inertia + b.count);
      sink_->push_back(std::move(p));
    }
    return inner_->resolve(contacts, b, thread);
  }
  bool armed = false;

 private:
  std::unique_ptr<Solver> inner_;
  std::vector<Problem>* sink_;
};

double kinetic(const IslandBodies& b, const std::vector<Mat3>& inv_inertia) {
  double e = 0.0;
  for (int i = 0; i < b.count; ++i) {
    e += 0.5 * b.v[i].squaredNorm() / b.inv_mass[i];
    e += 0.5 * b.w[i].dot(inv_inertia[i].inverse() * b.w[i]);
  }
  return e;
}

struct Resolved {
  SolverStats stats;
  double wall = 0.0, ke_before = 0.0, ke_after = 0.0;
  long contacts = 0, approaching_before = 0, approaching_after = 0;
};

Resolved resolve_all(Solver& solver, const std::vector<Problem>& problems) {
  Resolved r;
  for (const Problem& p : problems) {
    std::vector<Contact> cs = p.contacts;
    std::vector<Vec3> v = p.v, w = p.w;
    IslandBodies b{static_cast<int>(v.size()), v.data(), w.data(), p.inv_mass.data(),
                   p.inv_inertia.data()};
    double fastest = 0.0;
    for (const Contact& c : cs)
      fastest = std::max(fastest, -c.normal.dot(etdem::impulse::relative_velocity(c, b)));
    const double tol = 1e-4 * fastest;
    for (const Contact& c : cs)
      if (c.normal.dot(etdem::impulse::relative_velocity(c, b)) < -tol) ++r.approaching_before;
    r.ke_before += kinetic(b, p.inv_inertia);
    const auto t0 = Clock::now();
    r.stats.add(solver.resolve(cs, b, 0));
    r.wall += std::chrono::duration<double>(Clock::now() - t0).count();
    r.ke_after += kinetic(b, p.inv_inertia);
    for (const Contact& c : cs)
      if (c.normal.dot(etdem::impulse::relative_velocity(c, b)) < -tol) ++r.approaching_after;
    r.contacts += static_cast<long>(cs.size());
  }
  return r;
}

struct Snapshot {
  std::string name;
  etdem::Bodies bodies;
  double time = 0.0;
  std::vector<Problem> collisions, all;
};

[[noreturn]] void usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [N=10000] [STEPS=30] [THREADS=1] [MODES=collisions,all] [SOLVERS=all]\n",
               argv0);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc > 6) usage(argv[0]);
  const std::string only = argc > 5 ? argv[5] : "all";
  auto wanted = [&](const std::string& name) {
    if (only == "all") return true;
    const std::string list = "," + only + ",";
    return list.find("," + name + ",") != std::string::npos;
  };
  const std::string modes = argc > 4 ? argv[4] : "collisions,all";
  const bool want_all = modes.find("all") != std::string::npos;
  const bool want_collisions = modes.find("collisions") != std::string::npos;
  const long n = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 10000;
  const long steps = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 30;
  const int threads = argc > 3 ? static_cast<int>(std::strtol(argv[3], nullptr, 10)) : 1;
  if (n <= 0 || steps <= 0 || threads < 0) usage(argv[0]);

  etdem::World world;
  world.settings.dt = 1.0 / 600.0;
  world.settings.threads = threads;
  build_pour(world, n);
  std::vector<Problem> sink;
  auto recorder_owned = std::make_unique<Recorder>(etdem::make_solver(world.settings), &sink);
  Recorder* recorder = recorder_owned.get();
  world.set_solver(std::move(recorder_owned));
  world.initialize();

  // Pour to each snapshot time; record one step in both modes from the same state.
  std::vector<Snapshot> snaps = {
      {"pour", {}, 0.15, {}, {}}, {"settled", {}, 1.00, {}, {}}, {"flow", {}, 1.25, {}, {}}};
  for (int i = 0; i < world.bodies.count(); ++i)
    if (world.bodies.name[i] == "x1") world.events.push_back({1.01, i, false});
  const auto t_pour = Clock::now();
  for (Snapshot& s : snaps) {
    while (world.time() + 0.5 * world.settings.dt < s.time) world.step();
    s.bodies = world.bodies;
    const double t = world.time();
    for (const char* mode : {"etm", "pgs"}) {
      if (!(std::string(mode) == "etm" ? want_all : want_collisions)) continue;
      world.bodies = s.bodies;
      world.settings.resting = mode;
      world.initialize();
      sink.clear();
      recorder->armed = true;
      world.step();
      recorder->armed = false;
      (std::string(mode) == "etm" ? s.all : s.collisions) = std::move(sink);
      sink.clear();
    }
    world.bodies = s.bodies;  // continue the pour from the snapshot in the hybrid mode
    world.initialize();
    std::fprintf(stderr, "bench_solvers: snapshot %s at t = %.3f s (%.1f s of pouring so far)\n",
                 s.name.c_str(), t,
                 std::chrono::duration<double>(Clock::now() - t_pour).count());
  }

  // Every solver on the recorded islands.
  for (const Snapshot& s : snaps) {
    for (const char* mode : {"collisions", "all"}) {
      if (!(std::string(mode) == "all" ? want_all : want_collisions)) continue;
      const std::vector<Problem>& problems = std::string(mode) == "all" ? s.all : s.collisions;
      for (const std::string& solver_name : etdem::solver_names()) {
        const char* name = solver_name.c_str();
        if (!wanted(name)) continue;
        etdem::WorldSettings ws = world.settings;
        ws.solver = name;
        std::unique_ptr<Solver> solver;
        try {
          solver = etdem::make_solver(ws);
        } catch (const std::exception&) {
          std::printf("solvers snapshot=%s mode=%s solver=%s available=0\n", s.name.c_str(), mode,
                      name);
          continue;
        }
        solver->prepare(1);
        const Resolved r = resolve_all(*solver, problems);
        std::printf(
            "solvers snapshot=%s mode=%s solver=%s available=1 islands=%zu contacts=%ld "
            "resolve_s=%.6g impulses=%ld rounds=%ld guards=%ld approaching_before=%ld "
            "approaching_after=%ld ke_before_J=%.6g dissipated_J=%.6g restitution_J=%.6g "
            "friction_J=%.6g truncated_J=%.6g ledger_gap_J=%.3g\n",
            s.name.c_str(), mode, name, problems.size(), r.contacts, r.wall, r.stats.iterations,
            r.stats.rounds, r.stats.guards_fired, r.approaching_before, r.approaching_after,
            r.ke_before, r.ke_before - r.ke_after, r.stats.dissipated_restitution,
            r.stats.dissipated_friction, r.stats.truncated,
            (r.ke_before - r.ke_after) -
                (r.stats.dissipated_restitution + r.stats.dissipated_friction + r.stats.truncated));
        std::fflush(stdout);
      }
    }
  }

  // Every solver stepping the whole world from each snapshot.
  world.set_solver(nullptr);
  for (const Snapshot& s : snaps) {
    for (const std::string& solver_name : etdem::solver_names()) {
      const char* name = solver_name.c_str();
      if (!wanted(name)) continue;
      world.settings.solver = name;
      world.settings.resting = "pgs";
      world.bodies = s.bodies;
      try {
        world.initialize();
      } catch (const std::exception&) {
        continue;
      }
      const auto t0 = Clock::now();
      for (long k = 0; k < steps; ++k) world.step();
      const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
      const etdem::RunTotals& tot = world.totals();
      std::printf(
          "solvers snapshot=%s mode=step solver=%s steps=%ld ms_per_step=%.6g solve_ms_per_step=%.6g "
          "impulses=%ld guards=%ld collisions=%ld max_penetration_m=%.3g\n",
          s.name.c_str(), name, steps, 1e3 * wall / static_cast<double>(steps),
          1e3 * world.profile()[etdem::StepProfile::Solve] / static_cast<double>(steps), tot.solver.iterations,
          tot.solver.guards_fired, tot.collisions, tot.max_penetration);
      std::fflush(stdout);
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_solvers: %s\n", e.what());
  return 1;
}
