// The long cases of `etdem validate --long`: V5 (angle of repose) and V9 (mound at five time
// steps). Each runs example scenarios carried in the binary (embedded_scenarios.hpp) through
// this same executable's `etdem run` and `etdem analyze` in a temporary directory, up to
// `jobs` processes at a time, and judges the analyses' JSON and CSV files. Sizes and criteria:
// docs/validation.md ("etdem validate"); the full-size studies are tools/repose_sweep.py and
// tools/v9.sh.
#include "validate_long.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "embedded_scenarios.hpp"
#include "etdem/io/scenario.hpp"
#include "etdem/io/scenario_error.hpp"

extern char** environ;

namespace etdem::cli {

namespace {

namespace fs = std::filesystem;
using validation::Check;
using Kind = Check::Kind;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// One run: commands of this executable (argv without argv[0]) run one after the other, output
/// to DIR/log.txt; the next starts only when the previous exited 0.
struct Job {
  std::string dir;
  std::vector<std::vector<std::string>> commands;
  int exit_code = -1;  // of the last command that ran; 0 = all succeeded
  std::string failed;  // the command that failed
};

std::string self_path() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    throw std::runtime_error("etdem validate: cannot find its own executable: " + ec.message());
  return p.string();
}

pid_t spawn(const std::string& exe, const std::vector<std::string>& args, const std::string& log) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  std::vector<std::string> all = {exe};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0)
    throw std::runtime_error(
        fmt::format("etdem validate: cannot start {}: {}", exe, std::strerror(rc)));
  return pid;
}

/// Runs the jobs, at most `parallel` processes at a time. Every waitpid ends one command, so the
/// loop ends after as many waits as there are commands.
void run_jobs(std::vector<Job>& jobs, int parallel) {
  const std::string exe = self_path();
  struct Active {
    std::size_t job;
    std::size_t command;
  };
  std::map<pid_t, Active> active;
  std::size_t next = 0, done = 0;
  auto start = [&](std::size_t j, std::size_t c) {
    active[spawn(exe, jobs[j].commands[c], jobs[j].dir + "/log.txt")] = {j, c};
  };
  while (next < jobs.size() || !active.empty()) {
    while (next < jobs.size() && static_cast<int>(active.size()) < parallel) {
      fs::create_directories(jobs[next].dir);
      start(next, 0);
      ++next;
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(fmt::format("etdem validate: waitpid: {}", std::strerror(errno)));
    }
    const auto it = active.find(pid);
    if (it == active.end()) continue;
    const Active a = it->second;
    active.erase(it);
    Job& job = jobs[a.job];
    job.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (job.exit_code != 0) {
      std::string line;
      for (const std::string& s : job.commands[a.command]) line += " " + s;
      job.failed = "etdem" + line;
    } else if (a.command + 1 < job.commands.size()) {
      start(a.job, a.command + 1);
      continue;
    }
    ++done;
    fmt::print(stderr, "etdem validate: {} of {} runs done ({}{})\n", done, jobs.size(), job.dir,
               job.exit_code == 0 ? "" : ", failed");
  }
}

/// A fresh temporary directory (mkdtemp).
std::string temporary_directory(const std::string& stem) {
  std::string templ = (fs::temp_directory_path() / ("etdem-validate-" + stem + "-XXXXXX")).string();
  if (!mkdtemp(templ.data()))
    throw std::runtime_error(
        fmt::format("etdem validate: cannot create a temporary directory "
                    "{}: {}",
                    templ, std::strerror(errno)));
  return templ;
}

/// Writes the embedded scenario `name` into `dir`; returns the file's path.
std::string write_scenario(const std::string& dir, const std::string& name) {
  const auto& texts = embedded_scenarios();
  const auto it = texts.find(name);
  if (it == texts.end()) throw std::logic_error("etdem validate: no embedded scenario " + name);
  const std::string path = dir + "/" + fs::path(name).filename().string();
  std::ofstream out(path, std::ios::binary);
  out << it->second;
  if (!out) throw std::runtime_error(path + ": cannot be written");
  return path;
}

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot be read");
  return nlohmann::json::parse(in);
}

double number(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : kNaN;
}

std::vector<std::string> with_sets(std::vector<std::string> args,
                                   const std::vector<std::string>& sets) {
  for (const std::string& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  return args;
}

/// A job that failed: one row saying which command, its log kept.
Check failed_row(const std::string& id, const Job& job) {
  return {id,
          fmt::format("run in {}", job.dir),
          0.0,
          static_cast<double>(job.exit_code),
          0.0,
          Kind::Near,
          fmt::format("exit {}: {} (see {}/log.txt)", job.exit_code, job.failed, job.dir)};
}

// ---------------------------------------------------------------------------------------------
// V5. examples/repose/{spheres,cubes,crosses}.toml at full size, one fill seed, mu in
// {0, 0.2, 0.4, 0.6}; snapshots every 0.5 s tell a heap at rest from one still flowing.

constexpr double kFlowing = 0.03;  // share of the grains over the floor lost per second
constexpr double kNoSlope = 12.0;  // [deg] below this a heap holds no slope
constexpr double kMus[] = {0.0, 0.2, 0.4, 0.6};
const char* const kShapes[] = {"spheres", "cubes", "crosses"};

struct Heap {
  double angle = kNaN, spread = kNaN, drained = kNaN;
  double change = kNaN;  // [deg] of the angle over the last second
  bool ok = false;
  bool flowing() const { return !(drained <= kFlowing); }
  double held() const { return flowing() ? 0.0 : angle; }  // a flowing heap holds no angle
};

/// The heap of a finished job: the angle (repose.json) and the share of the grains over the
/// floor that left it during the last simulated second (repose_series.csv).
Heap read_heap(const std::string& dir) {
  Heap h;
  const nlohmann::json rep = read_json_file(dir + "/repose.json");
  const nlohmann::json summary = read_json_file(dir + "/summary.json");
  h.angle = number(rep, "mean_deg");
  h.spread = number(rep, "spread_deg");
  const double now = number(rep, "grains_over_floor"), end = number(summary, "simulated_time");
  std::ifstream in(dir + "/repose_series.csv");
  std::string line;
  std::getline(
      in, line);  // step,time,mean_deg,...,grains_over_floor (column 7),... (analyze_repose.cpp)
  double then = kNaN, angle_then = kNaN;
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string cell;
    std::vector<std::string> cells;
    while (std::getline(ss, cell, ',')) cells.push_back(cell);
    if (cells.size() < 8) continue;
    if (std::stod(cells[1]) <= end - 1.0 + 1e-9) {
      then = std::stod(cells[7]);
      angle_then = std::stod(cells[2]);
    }
  }
  h.drained = then > 0 ? (then - now) / then : kNaN;
  h.change = h.angle - angle_then;
  h.ok = std::isfinite(h.angle) && std::isfinite(h.drained);
  return h;
}

std::vector<Check> run_v5(int parallel) {
  const std::string id = "V5";
  const std::string root = temporary_directory("v5");
  std::vector<Job> jobs;
  for (const char* shape : kShapes) {
    const std::string file = write_scenario(root, fmt::format("examples/repose/{}.toml", shape));
    for (double mu : kMus) {
      // The 2014 paper's grains have no rolling resistance; the spheres example's demo value
      // (0.05, so that the demo's heap comes to rest) is set back to 0 for this case.
      const std::vector<std::string> sets = {fmt::format("material[0].friction={}", mu),
                                             "material[0].rolling_friction=0", "output.every=0",
                                             "output.energy_every=60"};
      // Snapshots every 0.5 s of the scenario's own step.
      const Scenario sc = load_scenario(file, sets);
      const long every = std::max(1L, std::lround(0.5 / sc.settings.dt));
      const std::string dir = fmt::format("{}/{}-mu{}", root, shape, mu);
      Job job;
      job.dir = dir;
      job.commands = {
          with_sets({"run", file, "-o", dir, "--threads", "1"},
                    {sets[0], sets[1], sets[2], fmt::format("output.state_every={}", every)}),
          {"analyze", "repose", dir, "--series"},
          {"analyze", "repose", dir}};
      jobs.push_back(job);
    }
  }
  // The costliest first (crosses, then cubes), so the last to finish are short.
  std::reverse(jobs.begin(), jobs.end());
  run_jobs(jobs, parallel);
  std::reverse(jobs.begin(), jobs.end());

  std::vector<Check> out;
  std::map<std::pair<std::string, double>, Heap> heaps;
  bool all_ok = true;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const std::string shape = kShapes[k / std::size(kMus)];
    const double mu = kMus[k % std::size(kMus)];
    if (jobs[k].exit_code != 0) {
      out.push_back(failed_row(id, jobs[k]));
      all_ok = false;
      continue;
    }
    heaps[{shape, mu}] = read_heap(jobs[k].dir);
  }
  for (const char* shape : kShapes) {
    auto heap = [&](double mu) -> const Heap* {
      const auto it = heaps.find({shape, mu});
      return it == heaps.end() ? nullptr : &it->second;
    };
    if (const Heap* h = heap(0.0))
      out.push_back({id, fmt::format("{}, mu 0: angle held [deg]", shape), kNoSlope, h->held(), 0.0,
                     Kind::Below,
                     fmt::format("no slope: below 12 deg or still flowing; read {:.1f} deg, "
                                 "{:.0f} %/s drained",
                                 h->angle, 100 * h->drained)});
    double worst_drain = 0.0;
    for (double mu : kMus) {
      const Heap* h = heap(mu);
      if (mu == 0.0 || !h) continue;
      worst_drain = std::max(worst_drain, std::isfinite(h->drained) ? h->drained : 1.0);
      out.push_back({id, fmt::format("{}, mu {}: angle [deg]", shape, mu), kNoSlope, h->angle, 0.0,
                     Kind::Above,
                     fmt::format("friction holds a slope; spread +-{:.1f} deg, {:+.1f} deg and "
                                 "{:.1f} % drained in the last s",
                                 h->spread, h->change, 100 * h->drained)});
    }
    out.push_back({id, fmt::format("{}, mu >= 0.2: largest share drained in the last s", shape),
                   kFlowing, worst_drain, 0.0, Kind::Below, "every heap with friction at rest"});
    // Rises with mu: no fall between neighbours beyond their two spreads; concave: the rise
    // from 0 to 0.2 exceeds the rise from 0.2 to 0.6.
    double worst_fall = -1e300;
    for (std::size_t k = 1; k < std::size(kMus); ++k) {
      const Heap *a = heap(kMus[k - 1]), *b = heap(kMus[k]);
      if (!a || !b) continue;
      worst_fall = std::max(worst_fall, a->held() - b->held() - (a->spread + b->spread));
    }
    out.push_back({id, fmt::format("{}: largest fall with mu beyond the spreads [deg]", shape), 0.0,
                   worst_fall, 0.0, Kind::Below, "the angle rises with mu"});
    const Heap *lo = heap(0.0), *mid = heap(0.2), *hi = heap(0.6);
    if (lo && mid && hi)
      out.push_back({id, fmt::format("{}: rise 0 -> 0.2 minus rise 0.2 -> 0.6 [deg]", shape), 0.0,
                     (mid->held() - lo->held()) - (hi->held() - mid->held()), 0.0, Kind::Above,
                     "non-linear: a saturating rise"});
  }
  // The paper's "crosses stand highest", reported without a verdict (docs/validation.md, V5).
  double margin = 1e300;
  for (double mu : kMus) {
    if (mu == 0.0) continue;
    const auto c = heaps.find({"crosses", mu}), s = heaps.find({"spheres", mu}),
               b = heaps.find({"cubes", mu});
    if (c == heaps.end() || s == heaps.end() || b == heaps.end()) continue;
    margin = std::min(margin, c->second.angle - std::max(s->second.angle, b->second.angle));
  }
  if (margin < 1e300)
    out.push_back({id, "crosses minus the higher other shape, smallest over mu >= 0.2 [deg]", 0.0,
                   margin, 0.0, Kind::Reported,
                   "the paper: crosses highest (> 0); open: the paper gives no cross, ours never "
                   "stood highest (docs/validation.md)"});
  if (all_ok) fs::remove_all(root);
  return out;
}

// ---------------------------------------------------------------------------------------------
// V9. examples/levelset/v9.toml reduced: 400 of its 1600 grains (a quarter of each fill) in a
// container of half the side (the same column height), 300-node grains, 4 s instead of 8, one
// thread per run, dt = 2.5e-4 to 4e-3 s. Height and spread (etdem analyze mound) compared with
// those at 2.5e-4 s.

constexpr double kV9Dts[] = {0.00025, 0.0005, 0.001, 0.002, 0.004};
constexpr double kV9Tolerance = 0.05;  // relative, the project's reading of "same" mound

std::vector<std::string> v9_reduction() {
  std::vector<std::string> sets;
  for (int k = 0; k < 6; ++k) sets.push_back(fmt::format("shape[{}].nodes=300", k));
  const int counts[6] = {25, 25, 62, 62, 113, 113};  // 400 of 100, 100, 250, 250, 450, 450
  const double z[7] = {0.0, 0.1, 0.29, 0.36, 0.43, 0.452, 0.5};
  for (int k = 0; k < 6; ++k) {
    sets.push_back(fmt::format("fill[{}].count={}", k, counts[k]));
    sets.push_back(fmt::format("fill[{}].region.max=[0.2, 0.2, {}]", k, z[k + 1]));
  }
  sets.push_back("wall[0].max=[0.2, 0.2, 0.55]");
  sets.push_back("simulation.duration=4.0");
  sets.push_back("output.every=0");
  sets.push_back("output.energy_every=100");
  return sets;
}

std::vector<Check> run_v9(int parallel) {
  const std::string id = "V9";
  const std::string root = temporary_directory("v9");
  const std::string file = write_scenario(root, "examples/levelset/v9.toml");
  std::vector<Job> jobs;
  for (double dt : kV9Dts) {
    std::vector<std::string> sets = v9_reduction();
    sets.push_back(fmt::format("simulation.dt={}", dt));
    (void)load_scenario(file, sets);  // the reduction is valid
    const std::string dir = fmt::format("{}/dt{}", root, dt);
    Job job;
    job.dir = dir;
    job.commands = {with_sets({"run", file, "-o", dir, "--threads", "1"}, sets),
                    {"analyze", "mound", dir}};
    jobs.push_back(job);
  }
  run_jobs(jobs, parallel);
  std::vector<Check> out;
  double h0 = kNaN, s0 = kNaN;
  bool all_ok = true;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    if (jobs[k].exit_code != 0) {
      out.push_back(failed_row(id, jobs[k]));
      all_ok = false;
      continue;
    }
    const nlohmann::json m = read_json_file(jobs[k].dir + "/mound.json");
    const double h = number(m, "height"), s = number(m, "spread");
    if (k == 0) {
      h0 = h, s0 = s;
      out.push_back({id, "dt 2.5e-4 s: height [m], the reference", 0.0, h, 0.0, Kind::Above,
                     "a mound: above the floor"});
      out.push_back({id, "dt 2.5e-4 s: spread [m], the reference", 0.0, s, 0.0, Kind::Above,
                     "95 % of the volume within"});
      continue;
    }
    const double ratio = kV9Dts[k] / kV9Dts[0];
    out.push_back({id, fmt::format("dt {:g} s ({:g}x): height / reference", kV9Dts[k], ratio), 1.0,
                   h / h0, kV9Tolerance, Kind::Near, "the same mound height, 5 %"});
    out.push_back({id, fmt::format("dt {:g} s ({:g}x): spread / reference", kV9Dts[k], ratio), 1.0,
                   s / s0, kV9Tolerance, Kind::Near, "the same mound spread, 5 %"});
  }
  if (all_ok) fs::remove_all(root);
  return out;
}

}  // namespace

std::vector<validation::Case> long_cases(int parallel) {
  return {{"V5", "angle of repose, spheres, cubes, crosses, mu 0-0.6 (ETM 2014 §7.4; full size)",
           true, [parallel] { return run_v5(parallel); }},
          {"V9", "mound of 400 level-set rocks at dt 1x-16x (2024 §6.2; reduced from 1600)", true,
           [parallel] { return run_v9(parallel); }}};
}

}  // namespace etdem::cli
