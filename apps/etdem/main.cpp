// The etdem command line (docs/scenario.md):
//   etdem run SCENARIO.toml [-o DIR] [--threads N] [--set key=value ...] [--resume CHECKPOINT]
//   etdem check SCENARIO.toml [--set key=value ...]
//   etdem analyze repose DIR [--series]
//   etdem analyze energy DIR
//   etdem analyze mound DIR [--fraction F] [--bin M] [--base Z]
//   etdem analyze runout DIR --direction X,Y [--origin X,Y] [--fraction F] [--cell M]
//   etdem plot energy|repose|mound|runout DIR [-o FILE.png] [the analysis' options]
//   etdem schema [--markdown | --update FILE.md]
//   etdem validate [--long] [--json] [--only CASE]
//   etdem view DIR [--png OUTDIR | --png-last FILE] [--size W H] [--speed-range MIN MAX]
// Exit codes: 0 success, 2 bad input (scenario, override, command line, unreadable run
// directory, a checkpoint that does not fit), 1 failure while running (e.g. a non-finite state;
// for view: ParaView or a display missing), 130 / 143 / 138 run stopped by SIGINT / SIGTERM /
// SIGUSR1 after writing a checkpoint (128 + the signal, as shells report it).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "etdem/analysis/repose.hpp"
#include "etdem/core/version.hpp"
#include "etdem/distributed/transport.hpp"
#include "etdem/io/energy_csv.hpp"
#include "etdem/io/run.hpp"
#include "etdem/io/scenario.hpp"
#include "etdem/io/settings_schema.hpp"
#include "etdem/io/shape_nodes.hpp"
#include "etdem/io/state_csv.hpp"
#include "etdem/io/summary_json.hpp"
#include "etdem/io/toml_reader.hpp"
#include "etdem/world/world.hpp"
#include "view.hpp"

#ifdef ETDEM_WITH_MPI
#include <chrono>
#include <cstdlib>
#include <thread>

#include "etdem/distributed/mpi/mpi_transport.hpp"
#endif

namespace {

using namespace etdem;

using cli::kExitBadInput;
using cli::kExitFailure;
using cli::kExitOk;

void print_ledger(const EnergyLedger& l) {
  fmt::print(
      "energy [J]: initial {:.6g}, final total {:.6g} (kinetic {:.6g} + {:.6g} rotational, "
      "potential {:.6g}, elastic {:.6g})\n",
      l.initial, l.total(), l.kinetic_translational, l.kinetic_rotational, l.potential, l.elastic);
  std::string dissipated;
  for (const LedgerColumn& c : kLedgerColumns)
    if (c.kind == LedgerColumn::kDissipated)
      dissipated += fmt::format("{}{} {:.6g}", dissipated.empty() ? "" : ", ", c.name, l.*c.member);
  fmt::print("dissipated [J]: {}; residual {:.3g} (relative {:.3g})\n", dissipated, l.residual(),
             relative_residual(l));
}

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

/// The step's phases over the run: seconds, share, calls and microseconds per step.
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

int run(const std::string& file, const std::vector<std::string>& sets, const std::string& dir,
        int threads, bool profile, const std::string& resume,
        distributed::Transport* transport = nullptr) {
  Scenario sc = load_scenario(file, sets);
  print_mesh_notes(sc);
  if (threads >= 0) sc.settings.threads = threads;
  RunOptions opt;
  opt.directory = dir;
  opt.resume = resume;
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
               file, signo, r.steps, s["simulated_time"].get<double>(), r.checkpoint, file,
               r.directory, r.checkpoint);
    return 128 + signo;
  }
  fmt::print("etdem: {} -> {}/ (energy.csv, state.csv, summary.json{})\n", file, r.directory,
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
  if (profile) print_profile(s);
  return kExitOk;
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

nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nullptr;
}

/// Grains whose centre lies over the container's floor: how many, and how fast the fastest and
/// the mean one move (a heap still creeping has not reached its angle of repose).
struct FloorMotion {
  long grains = 0;
  double max_speed = 0.0, mean_speed = 0.0;  // [m/s]
};

FloorMotion floor_motion(const StateTable& state, const ContainerExtents& c) {
  FloorMotion m;
  double sum = 0.0;
  for (std::size_t k = 0; k < state.size(); ++k) {
    const Vec3& p = state.position[k];
    if (!(p.x() >= c.min.x() && p.x() <= c.max.x() && p.y() >= c.min.y() && p.y() <= c.max.y()))
      continue;
    const double v = state.velocity[k].norm();
    ++m.grains;
    sum += v;
    m.max_speed = std::max(m.max_speed, v);
  }
  if (m.grains > 0) m.mean_speed = sum / static_cast<double>(m.grains);
  return m;
}

ContainerExtents require_container(const std::string& dir) {
  const auto container = read_container(dir + "/summary.json");
  if (!container)
    throw InputError(dir +
                     "/summary.json: container: the run has no box container; the "
                     "repose analysis needs one ([[wall]] type = \"box\")");
  return *container;
}

/// The run's shapes.json, or nothing for runs written before it existed.
std::optional<std::map<std::string, ShapeNodes>> read_run_shapes(const std::string& dir) {
  const std::string path = dir + "/shapes.json";
  if (!std::filesystem::exists(path)) return std::nullopt;
  return read_shapes_json(path);
}

/// The heap's surface nodes (the shapes' nodes placed by state.csv), or, without shapes or for a
/// state.csv without shape names, one node per grain at its top over its centre.
struct HeapNodes {
  std::vector<Vec3> nodes;
  bool from_shapes = false;
};

HeapNodes heap_nodes(const std::optional<std::map<std::string, ShapeNodes>>& shapes,
                     const StateTable& state) {
  HeapNodes h;
  h.from_shapes = shapes.has_value();
  for (std::size_t k = 0; k < state.size() && h.from_shapes; ++k) {
    const auto it = shapes->find(state.shape_name[k]);
    if (it == shapes->end())
      h.from_shapes = false;
    else if (it->second.net.empty())  // a [[net]]'s nodes are not part of the heap
      append_surface_points(it->second, state.position[k], state.orientation[k], h.nodes);
  }
  if (!h.from_shapes) {
    h.nodes.clear();
    const std::vector<double> tops = state.top_offsets();
    for (std::size_t k = 0; k < state.size(); ++k)
      h.nodes.push_back(state.position[k] + Vec3(0, 0, tops[k]));
  }
  return h;
}

}  // namespace

int etdem::cli::analyze_repose(const std::string& dir) {
  const StateTable state = read_state_csv(dir + "/state.csv");
  const ContainerExtents container = require_container(dir);
  const HeapNodes heap = heap_nodes(read_run_shapes(dir), state);
  const ReposeResult r = repose_angle_of_nodes(heap.nodes, container.min, container.max);
  const FloorMotion motion = floor_motion(state, container);
  nlohmann::json j;
  j["method"] = "ETM 2014 section 7.4: 8 x 16 grid, least-squares line per row";
  j["heights_from"] = heap.from_shapes ? "surface nodes (shapes.json)" : "grain tops over centres";
  j["container"] = {{"name", container.name},
                    {"min", {container.min.x(), container.min.y(), container.min.z()}},
                    {"max", {container.max.x(), container.max.y(), container.max.z()}}};
  j["long_axis"] = r.long_axis == 0 ? "x" : "y";
  j["grains"] = state.size();
  j["grains_over_floor"] = motion.grains;
  j["max_speed_over_floor"] = motion.max_speed;
  j["mean_speed_over_floor"] = motion.mean_speed;
  j["angles_deg"] = nlohmann::json::array();
  j["slopes"] = nlohmann::json::array();
  for (std::size_t k = 0; k < r.angles.size(); ++k) {
    j["angles_deg"].push_back(number_or_null(r.angles[k]));
    j["slopes"].push_back(number_or_null(r.slopes[k]));
  }
  j["intercepts_m"] = nlohmann::json::array();  // fitted height at the floor's centre
  for (double a : r.intercepts) j["intercepts_m"].push_back(number_or_null(a));
  j["cell_centres_m"] = nlohmann::json::array();  // along the long axis, from the floor's centre
  for (double c : r.cell_centres) j["cell_centres_m"].push_back(c);
  j["cells_per_row"] = r.points;
  j["mean_deg"] = number_or_null(r.mean);
  j["spread_deg"] = number_or_null(r.spread);
  j["min_deg"] = number_or_null(r.min);
  j["max_deg"] = number_or_null(r.max);
  j["rows_used"] = r.rows_used;
  j["heights_m"] = nlohmann::json::array();
  for (const auto& row : r.heights) {
    nlohmann::json jr = nlohmann::json::array();
    for (double h : row) jr.push_back(number_or_null(h));
    j["heights_m"].push_back(jr);
  }
  write_json(dir + "/repose.json", j);
  fmt::print("angle of repose ({} grains, container '{}', rows along {}, heights of {}):\n",
             state.size(), container.name, r.long_axis == 0 ? "x" : "y",
             heap.from_shapes ? "surface nodes" : "grain tops");
  for (std::size_t k = 0; k < r.angles.size(); ++k)
    fmt::print("  row {}: {} ({} cells)\n", k,
               std::isfinite(r.angles[k]) ? fmt::format("{:.2f} deg", r.angles[k]) : "n/a",
               r.points[k]);
  fmt::print("mean {:.2f} deg, spread {:.2f} deg ({} rows); written to {}/repose.json\n", r.mean,
             r.spread, r.rows_used, dir);
  fmt::print("{} grains over the floor, fastest {:.3g} m/s, mean {:.3g} m/s\n", motion.grains,
             motion.max_speed, motion.mean_speed);
  return kExitOk;
}

namespace {

/// The angle over time from the run's state_SSSSSS.csv snapshots (output.state_every), so one
/// can see whether the heap has stopped: repose_series.csv, one row per snapshot.
int analyze_repose_series(const std::string& dir) {
  namespace fs = std::filesystem;
  const ContainerExtents container = require_container(dir);
  const nlohmann::json summary = read_json(dir + "/summary.json");
  if (!summary.contains("dt") || !summary["dt"].is_number())
    throw InputError(dir + "/summary.json: dt: missing (a summary written by etdem run is needed)");
  const double dt = summary["dt"].get<double>();
  const auto shapes = read_run_shapes(dir);
  std::vector<std::pair<long, std::string>> snapshots;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() == 16 && name.rfind("state_", 0) == 0 && name.substr(12) == ".csv" &&
        name.find_first_not_of("0123456789", 6) == 12)
      snapshots.emplace_back(std::stol(name.substr(6, 6)), e.path().string());
  }
  if (ec) throw InputError(fmt::format("{}: cannot list the directory: {}", dir, ec.message()));
  if (snapshots.empty())
    throw InputError(dir +
                     ": no state_SSSSSS.csv snapshots; run with output.state_every = N to "
                     "follow the angle over time");
  std::sort(snapshots.begin(), snapshots.end());
  const std::string path = dir + "/repose_series.csv";
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw InputError(path + ": cannot be written");
  fmt::print(f,
             "step,time,mean_deg,spread_deg,min_deg,max_deg,rows_used,grains_over_floor,"
             "max_speed,mean_speed\n");
  fmt::print("{:>8} {:>9} {:>9} {:>9} {:>7} {:>11} {:>11}\n", "step", "time [s]", "mean deg",
             "spread", "grains", "max [m/s]", "mean [m/s]");
  for (const auto& [step, file] : snapshots) {
    const StateTable state = read_state_csv(file);
    const ReposeResult r =
        repose_angle_of_nodes(heap_nodes(shapes, state).nodes, container.min, container.max);
    const FloorMotion m = floor_motion(state, container);
    fmt::print(f, "{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{},{},{:.9g},{:.9g}\n", step, step * dt,
               r.mean, r.spread, r.min, r.max, r.rows_used, m.grains, m.max_speed, m.mean_speed);
    fmt::print("{:>8} {:>9.4f} {:>9.2f} {:>9.2f} {:>7} {:>11.3g} {:>11.3g}\n", step, step * dt,
               r.mean, r.spread, m.grains, m.max_speed, m.mean_speed);
  }
  if (std::fclose(f) != 0) throw InputError(path + ": cannot be written");
  fmt::print("written to {}\n", path);
  return kExitOk;
}

int analyze_energy(const std::string& dir) {
  const auto rows = read_energy_csv(dir + "/energy.csv");
  double worst = 0.0, worst_time = 0.0;
  for (const EnergyRow& r : rows) {
    const double rel = relative_residual(r.ledger);
    if (rel > worst) worst = rel, worst_time = r.time;
  }
  fmt::print("energy.csv: {} rows, t = {:.6g} .. {:.6g} s\n", rows.size(), rows.front().time,
             rows.back().time);
  print_ledger(rows.back().ledger);
  fmt::print("max relative residual: {:.3g} at t = {:.6g} s\n", worst, worst_time);
  return kExitOk;
}

/// One line per setting, as `--set` takes it: "simulation.etm.lambda = 30  (integer, [1, 1e6])".
template <class T>
void print_keys(const SettingTable<T>& table, std::string_view prefix) {
  const T defaults{};
  for (const Setting<T>& s : table.settings) {
    std::string valid = s.range.text();
    if (!s.choices.empty()) valid = fmt::format("{}", fmt::join(s.choices, ", "));
    if (!s.note.empty()) valid += (valid.empty() ? "" : ", ") + std::string(s.note);
    const std::string def = s.required ? std::string("required") : [&] {
      return std::visit(
          [](const auto& v) -> std::string {
            using V = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<V, Vec3>)
              return fmt::format("[{}, {}, {}]", v.x(), v.y(), v.z());
            else if constexpr (std::is_same_v<V, std::string>)
              return fmt::format("\"{}\"", v);
            else
              return fmt::format("{}", v);
          },
          s.get(defaults));
    }();
    fmt::print("{}.{} = {}{}{}\n", prefix, s.key, def,
               s.unit.empty() ? "" : fmt::format(" [{}]", s.unit),
               valid.empty() ? "" : fmt::format("  ({})", valid));
  }
}

/// `etdem schema`: the settings every scenario may set, with defaults and valid ranges;
/// --markdown prints the generated tables of docs/scenario.md, --update rewrites them in a file.
int schema(bool markdown, const std::string& update) {
  if (!update.empty()) {
    std::ifstream in(update, std::ios::binary);
    if (!in) throw InputError(update + ": cannot be read");
    std::stringstream text;
    text << in.rdbuf();
    std::string updated;
    try {
      updated = update_schema_blocks(text.str());
    } catch (const std::invalid_argument& e) {
      throw InputError(fmt::format("{}: {}", update, e.what()));
    }
    if (updated == text.str()) {
      fmt::print("{}: up to date\n", update);
      return kExitOk;
    }
    std::ofstream out(update, std::ios::binary);
    out << updated;
    if (!out) throw InputError(update + ": cannot be written");
    fmt::print("{}: generated tables rewritten\n", update);
    return kExitOk;
  }
  if (markdown) {
    for (const std::string& name : schema_names())
      fmt::print("<!-- schema {} -->\n{}<!-- end schema -->\n\n", name, schema_markdown(name));
    return kExitOk;
  }
  for (const SettingTable<Scenario>& t : simulation_schema()) print_keys(t, t.name);
  print_keys(material_schema(), "material[N]");
  print_keys(output_schema(), "output");
  return kExitOk;
}

#ifdef ETDEM_WITH_MPI
/// `mpirun -np N etdem run ...`: the run split over the ranks (docs/distributed.md). An error
/// ends every rank with one message and the error's exit code: bad input (the same on every
/// rank, or the output directory that rank 0 alone writes) is reported by rank 0; a failure on
/// one rank (a non-finite state) by that rank.
int run_mpi(int& argc, char**& argv, const std::string& file, const std::vector<std::string>& sets,
            const std::string& dir, int threads, bool profile, const std::string& resume) {
  distributed::MpiSession session(argc, argv);
  distributed::MpiTransport transport;
  if (transport.size() == 1) return run(file, sets, dir, threads, profile, resume);
  try {
    return run(file, sets, dir, threads, profile, resume, &transport);
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

int main(int argc, char** argv) {
  CLI::App app{"etdem: impulse-based discrete element engine"};
  app.require_subcommand(1);
  app.set_version_flag("--version", fmt::format("etdem {}", etdem::version_string()),
                       "print the version and the commit it was built from, and exit");
  std::string file, dir, analyze_dir;
  std::vector<std::string> sets;
  int threads = -1;

  auto* run_cmd = app.add_subcommand("run", "run a scenario and write its outputs");
  run_cmd->add_option("scenario", file, "scenario file (TOML)")->required();
  run_cmd->add_option("-o,--output", dir,
                      "output directory (default: output.directory or out/<stem>)");
  run_cmd->add_option("--threads", threads, "OpenMP threads (0 = default)")
      ->check(CLI::Validator(
          [](std::string& text) {
            int n = -1;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
            if (text.empty() || ec != std::errc() || end != text.data() + text.size() || n < 0 ||
                n > 4096)
              return fmt::format("expected an integer in [0, 4096] (0 = default), got '{}'", text);
            return std::string();
          },
          "INT in [0, 4096]"));
  run_cmd->add_option("--set", sets, "override a scenario key, e.g. --set simulation.dt=0.001")
      ->allow_extra_args(false);
  bool profile = false;
  run_cmd->add_flag("--profile", profile, "print the time of each step phase at the end");
  std::string resume;
  run_cmd->add_option("--resume", resume,
                      "continue from a checkpoint of this scenario (DIR/checkpoints/*.bin) into "
                      "the directory of the run that wrote it");

  auto* check_cmd = app.add_subcommand("check", "validate a scenario without running it");
  check_cmd->add_option("scenario", file, "scenario file (TOML)")->required();
  check_cmd->add_option("--set", sets, "override a scenario key")->allow_extra_args(false);

  auto* analyze_cmd = app.add_subcommand("analyze", "analyse the outputs of a run");
  analyze_cmd->require_subcommand(1);
  auto* repose_cmd = analyze_cmd->add_subcommand("repose", "angle of repose (ETM 2014 7.4)");
  repose_cmd->add_option("dir", analyze_dir, "run directory")->required();
  bool series = false;
  repose_cmd->add_flag("--series", series,
                       "the angle at every state_SSSSSS.csv snapshot, to repose_series.csv");
  auto* energy_cmd = analyze_cmd->add_subcommand("energy", "final energy ledger and residual");
  energy_cmd->add_option("dir", analyze_dir, "run directory")->required();

  etdem::cli::MoundOptions mound;
  etdem::cli::RunoutOptions runout;
  auto add_mound_options = [&](CLI::App* c) {
    c->add_option("--fraction", mound.fraction,
                  "share of the deposit's weight (runout: also of the fan's area), (0, 1]");
    c->add_option("--bin", mound.bin, "profile annulus [m] (default: median grain diameter)");
    c->add_option("--base", mound.base,
                  "floor height [m] (default: the container floor, else the lowest node)");
  };
  auto add_runout_options = [&](CLI::App* c, bool required) {
    auto* d = c->add_option("--direction", runout.direction, "runout direction X,Y");
    if (required) d->required();
    c->add_option("--origin", runout.origin, "apex X,Y [m] runout is measured from (0,0)");
    c->add_option("--cell", runout.cell, "deposit map cell [m] (default: half the median radius)");
  };
  auto* mound_cmd = analyze_cmd->add_subcommand(
      "mound", "mound height, spread, reach and radial profile (mound.json, mound_profile.csv)");
  mound_cmd->add_option("dir", analyze_dir, "run directory")->required();
  add_mound_options(mound_cmd);
  auto* runout_cmd = analyze_cmd->add_subcommand(
      "runout", "runout distance, deposit area, fan angle (runout.json, runout_map.csv)");
  runout_cmd->add_option("dir", analyze_dir, "run directory")->required();
  runout_cmd->add_option("--fraction", runout.fraction, "share of the weight and fan area, (0, 1]");
  add_runout_options(runout_cmd, true);

  etdem::cli::PlotOptions plot;
  auto* plot_cmd = app.add_subcommand(
      "plot", "PNG of a run with matplotlib: energy, repose, mound or runout (DIR/KIND.png)");
  plot_cmd->add_option("kind", plot.kind, "energy | repose | mound | runout")
      ->required()
      ->check(CLI::IsMember({"energy", "repose", "mound", "runout"}));
  plot_cmd->add_option("dir", plot.dir, "run directory")->required();
  plot_cmd->add_option("-o,--output", plot.output, "PNG file (default: DIR/KIND.png)");
  add_mound_options(plot_cmd);
  add_runout_options(plot_cmd, false);

  auto* schema_cmd =
      app.add_subcommand("schema", "list every setting with its default, unit and valid range");
  bool markdown = false;
  std::string update_doc;
  schema_cmd->add_flag("--markdown", markdown, "print the generated tables of docs/scenario.md");
  schema_cmd->add_option("--update", update_doc,
                         "rewrite the generated tables of a markdown file (docs/scenario.md)");

  auto* view_cmd = app.add_subcommand(
      "view", "open a run in ParaView (tools/paraview_view.py with pvpython), or render PNGs");
  ViewOptions view;
  view_cmd->add_option("dir", view.directory, "run directory")->required();
  auto* png = view_cmd->add_option("--png", view.png, "one PNG per frame: OUTDIR/frame_SSSSSS.png");
  view_cmd->add_option("--png-last", view.png_last, "the last frame as a PNG")->excludes(png);
  view_cmd->add_option("--size", view.size, "picture size in pixels")
      ->expected(2)
      ->check(CLI::Range(16, 8192));
  view_cmd
      ->add_option("--speed-range", view.speed_range,
                   "colour scale of the speed, m/s (default: 0 to the fastest grain)")
      ->expected(2)
      ->check(CLI::Range(0.0, 1e12));

  auto* validate_cmd = app.add_subcommand(
      "validate", "run the papers' validation cases and compare with their numbers");
  etdem::cli::ValidateOptions validate;
  validate_cmd->add_flag("--long", validate.long_cases, "also the long cases");
  validate_cmd->add_flag("--json", validate.json, "print JSON instead of the table");
  validate_cmd->add_option("--only", validate.only,
                           "run one case (V3, V4, V6, V8, V7 Table 2, V7 Bernoulli, V5, ...)");
  validate_cmd
      ->add_option("--jobs", validate.jobs, "processes the long cases (V5, V9) run at a time")
      ->check(CLI::Range(1, 64));
  // Hidden (no description): scales every tolerance, so a test can make a case fail.
  validate_cmd->add_option("--tolerance-scale", validate.tolerance_scale)->group("");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    // One line, naming the scenario file when it was given: "FILE: command line: reason".
    std::string what = e.what();
    for (char& c : what)
      if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    fmt::print(stderr, "{}: command line: {} (see etdem --help)\n",
               file.empty() ? std::string("etdem") : file, what);
    return kExitBadInput;
  }
  try {
    if (run_cmd->parsed()) {
#ifdef ETDEM_WITH_MPI
      if (std::getenv("OMPI_COMM_WORLD_SIZE"))  // started by mpirun
        return run_mpi(argc, argv, file, sets, dir, threads, profile, resume);
#endif
      return run(file, sets, dir, threads, profile, resume);
    }
    if (check_cmd->parsed()) return check(file, sets);
    if (repose_cmd->parsed())
      return series ? analyze_repose_series(analyze_dir) : etdem::cli::analyze_repose(analyze_dir);
    if (energy_cmd->parsed()) return analyze_energy(analyze_dir);
    if (mound_cmd->parsed()) return etdem::cli::analyze_mound(analyze_dir, mound);
    if (runout_cmd->parsed()) return etdem::cli::analyze_runout(analyze_dir, runout);
    if (plot_cmd->parsed()) {
      plot.mound = mound;
      plot.runout = runout;
      plot.runout.fraction = mound.fraction;
      if (plot.kind == "runout" && plot.runout.direction.empty())
        throw InputError(input_message(plot.dir, 0, "--direction",
                                       "required for plot runout: the runout direction X,Y", ""));
      return etdem::cli::plot(plot);
    }
    if (schema_cmd->parsed()) return schema(markdown, update_doc);
    if (view_cmd->parsed()) return view_run(view);
    if (validate_cmd->parsed()) return etdem::cli::validate(validate);
  } catch (const InputError& e) {
    std::fflush(stdout);
    fmt::print(stderr, "{}\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr, "etdem: error: {}\n", e.what());
    return kExitFailure;
  }
  return kExitBadInput;
}
