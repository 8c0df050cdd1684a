// `etdem run SCENARIO.toml` and `etdem check SCENARIO.toml`: the scenario loaded (overrides
// applied), then run through io/run.hpp, on one process or split over the ranks mpirun started,
// or only built and checked. What a run prints: where its files went, its counts, the energy
// ledger and, with --profile, the time of each step phase.
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "etdem/core/stage_profile.hpp"
#include "etdem/distributed/transport.hpp"
#include "etdem/io/run.hpp"
#include "etdem/io/scenario.hpp"
#include "etdem/world/world.hpp"

#ifdef ETDEM_WITH_MPI
#include <chrono>
#include <cstdlib>
#include <thread>

#include "etdem/distributed/mpi/mpi_transport.hpp"
#endif

namespace etdem::cli {
namespace {

/// What the loader did with mesh files: mesh walls (dropped degenerate triangles, turned
/// normals), compounds from tetrahedral meshes (tetrahedralised, merged into convex parts).
void print_mesh_notes(const Scenario& sc) {
  for (std::size_t s = 0; s < sc.shape_sources.size(); ++s)
    for (const std::string& note : sc.shape_sources[s].notes)
      fmt::print("{}: note: shape '{}': {}: {}\n", sc.file, sc.shapes.name[s],
                 sc.shape_sources[s].file, note);
  for (std::size_t w = 0; w < sc.walls.size(); ++w)
    if (sc.walls[w].mesh)
      for (const std::string& note : sc.walls[w].mesh->notes)
        fmt::print("{}: note: wall[{}].file: {}: {}\n", sc.file, w, sc.walls[w].file, note);
}

/// The step's phases over the run: seconds, share, calls and microseconds per step; then the
/// stages inside them that ran (core/stage_profile.hpp), with their share of the total.
void print_profile(const nlohmann::json& summary) {
  const auto& seconds = summary["profile_seconds"];
  const auto& calls = summary["profile_calls"];
  const double total = seconds["total"].get<double>();
  const long steps = summary["steps"].get<long>();
  fmt::print("{:<10} {:>10} {:>7} {:>10} {:>12}\n", "phase", "seconds", "share", "calls",
             "us/step");
  for (int k = 0; k < StepProfile::kPhases; ++k) {
    const char* name = StepProfile::kNames[k];
    const double t = seconds[name].get<double>();
    fmt::print("{:<10} {:>10.3f} {:>6.1f}% {:>10} {:>12.1f}\n", name, t,
               total > 0.0 ? 100.0 * t / total : 0.0, calls[name].get<long>(),
               steps > 0 ? 1e6 * t / static_cast<double>(steps) : 0.0);
  }
  fmt::print("{:<10} {:>10.3f} {:>6.1f}% {:>10} {:>12.1f}\n", "total", total, 100.0, steps,
             steps > 0 ? 1e6 * total / static_cast<double>(steps) : 0.0);
  const auto& stages = summary["profile_stages"];
  bool heading = false;
  for (int k = 0; k < StageProfile::kStages; ++k) {
    const char* name = StageProfile::kNames[k];
    const double t = stages[name].get<double>();
    if (!(t > 0.0)) continue;
    if (!heading) fmt::print("{:<24} {:>10} {:>7}\n", "stage (inside a phase)", "seconds", "share");
    heading = true;
    fmt::print("{:<24} {:>10.3f} {:>6.1f}%\n", name, t, total > 0.0 ? 100.0 * t / total : 0.0);
  }
}

/// The signal that asked the run to stop (SIGINT, SIGTERM, SIGUSR1), 0 = none.
volatile std::sig_atomic_t stop_signal = 0;

extern "C" void on_stop_signal(int signo) {
  stop_signal = signo;
}

/// SIGINT, SIGTERM and SIGUSR1 stop the run after the current step (RunOptions::stop); the
/// handler is reset by the first signal, so a second one ends the process at once. In a run
/// split over ranks, every rank stops after the same step (the ranks agree on it every step):
/// mpirun forwards SIGUSR1 to every rank, while on SIGINT and SIGTERM it ends the ranks itself
/// after a short grace, too short for a checkpoint of a large run (docs/distributed.md).
void catch_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGUSR1, &sa, nullptr);
}

int run_on(const RunCommandOptions& o, distributed::Transport* transport = nullptr) {
  Scenario sc = load_scenario(o.file, o.sets);
  print_mesh_notes(sc);
  if (o.threads >= 0) sc.settings.threads = o.threads;
  RunOptions opt;
  opt.directory = o.directory;
  opt.resume = o.resume;
  opt.stop = &stop_signal;
  opt.transport = transport;
  const bool root = !transport || transport->rank() == 0;
  opt.progress = root;
  catch_stop_signals();
  const RunResult r = run_scenario(sc, opt);
  if (!root) return kExitOk;  // rank 0 reports for every rank
  const auto& s = r.summary;
  if (r.interrupted) {
    // In a split run the signal may have reached another rank only: every rank stopped.
    const int signo = stop_signal != 0 ? static_cast<int>(stop_signal) : SIGTERM;
    fmt::print(stderr,
               "etdem: {} stopped by signal {} after step {} (t = {:.6g} s); checkpoint {}; "
               "continue with: etdem run {} -o {} --resume {}\n",
               o.file, signo, r.steps, s["simulated_time"].get<double>(), r.checkpoint, o.file,
               r.directory, r.checkpoint);
    return 128 + signo;
  }
  fmt::print("etdem: {} -> {}/ (energy.csv, state.csv, summary.json{})\n", o.file, r.directory,
             r.frames > 0 ? fmt::format(", particles.pvd + {} frames in frames/", r.frames) : "");
  fmt::print(
      "steps: {} ({:.6g} s simulated) in {:.3f} s wall, {:.1f} steps/s, {} threads, {} "
      "bodies\n",
      r.steps, s["simulated_time"].get<double>(), r.wall_seconds,
      s["steps_per_second"].get<double>(), s["threads"].get<int>(),
      s["bodies"]["dynamic"].get<long>());
  fmt::print(
      "solver {}: {} iterations, {} rounds, {} guards fired; max penetration {:.3g} m "
      "({:.3g} of the smallest grain)\n",
      s["solver"]["name"].get<std::string>(), s["solver"]["iterations"].get<long>(),
      s["solver"]["rounds"].get<long>(), s["solver"]["guards_fired"].get<long>(),
      s["max_penetration"]["m"].get<double>(),
      s["max_penetration"]["fraction_of_smallest_diameter"].get<double>());
  print_ledger(r.ledger);
  fmt::print("max relative residual over the run: {:.3g}\n", r.max_relative_residual);
  if (o.profile) print_profile(s);
  return kExitOk;
}

#ifdef ETDEM_WITH_MPI
/// `mpirun -np N etdem run ...`: the run split over the ranks (docs/distributed.md). An error
/// ends every rank with one message and the error's exit code: bad input (the same on every
/// rank, or the output directory that rank 0 alone writes) is reported by rank 0; a failure on
/// one rank (a non-finite state) by that rank.
int run_mpi(int& argc, char**& argv, const RunCommandOptions& o) {
  distributed::MpiSession session(argc, argv);
  distributed::MpiTransport transport;
  if (transport.size() == 1) return run_on(o);
  try {
    return run_on(o, &transport);
  } catch (const InputError& e) {
    std::fflush(stdout);
    if (transport.rank() == 0) transport.abort(e.what(), kExitBadInput);
    // The same error on rank 0, which reports it and ends every rank.
    std::this_thread::sleep_for(std::chrono::seconds(30));
    std::_Exit(kExitBadInput);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    transport.abort(fmt::format("etdem: error on rank {} of {}: {}", transport.rank(),
                                transport.size(), e.what())
                        .c_str(),
                    kExitFailure);
  }
}
#endif

}  // namespace

int run(int& argc, char**& argv, const RunCommandOptions& options) {
#ifdef ETDEM_WITH_MPI
  if (std::getenv("OMPI_COMM_WORLD_SIZE"))  // started by mpirun
    return run_mpi(argc, argv, options);
#else
  (void)argc;
  (void)argv;
#endif
  return run_on(options);
}

int check(const std::string& file, const std::vector<std::string>& sets) {
  const Scenario sc = load_scenario(file, sets);
  World world;
  (void)build_world(sc, world);  // checks the initial state
  long fixed = 0;
  for (const BodySpec& b : sc.bodies) fixed += b.fixed;
  fmt::print(
      "{}: ok: {} bodies ({} dynamic), {} wall planes, {} events; {} steps of {:.6g} s "
      "({:.6g} s), solver {}\n",
      file, sc.grain_count(), sc.grain_count() - fixed, sc.plane_count(), sc.events.size(),
      sc.steps(), sc.settings.dt, sc.duration, sc.settings.solver);
  print_mesh_notes(sc);
  return kExitOk;
}

}  // namespace etdem::cli
