// Checkpoint and resume: a run resumed from any of its checkpoints ends in the same bytes as the
// run that never stopped (state.csv, energy.csv, frames, snapshots, summary.json apart from its
// wall times), for every kind of grain, wall, solver and resting treatment; bad checkpoints are
// refused with one line before anything is written.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "etdem/io/checkpoint.hpp"
#include "etdem/io/run.hpp"
#include "etdem/io/scenario.hpp"

namespace fs = std::filesystem;
using namespace etdem;

namespace {

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// summary.json without what measures the machine rather than the run (and the thread count,
/// which a resumed run may change), nor the statistics of the broad and narrow phases' caches (a
/// resumed run starts with an empty pair list and no near-node lists and builds them at once:
/// docs/design.md "Checkpoints").
nlohmann::json summary_without_wall_times(const fs::path& p) {
  nlohmann::json j = nlohmann::json::parse(read_bytes(p));
  for (const char* k : {"wall_time", "steps_per_second", "frame_seconds", "profile_seconds",
                        "profile_stages", "threads"})
    j.erase(k);
  j["terrains"].erase("build_seconds");
  j.erase("broad_phase");
  j.erase("narrow_phase");
  return j;
}

/// Every file of a run directory but its checkpoints, by relative path.
std::map<std::string, fs::path> run_files(const fs::path& dir) {
  std::map<std::string, fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const std::string rel = fs::relative(e.path(), dir).string();
    if (!rel.starts_with("checkpoints/")) out[rel] = e.path();
  }
  return out;
}

/// The two run directories hold the same files with the same bytes.
void expect_same_run(const fs::path& ref, const fs::path& other, const std::string& what) {
  const auto a = run_files(ref), b = run_files(other);
  std::vector<std::string> names_a, names_b;
  for (const auto& [k, v] : a) names_a.push_back(k);
  for (const auto& [k, v] : b) names_b.push_back(k);
  ASSERT_EQ(names_a, names_b) << what;
  ASSERT_GT(a.size(), 3u);
  for (const auto& [name, path] : a) {
    if (name == "summary.json")
      EXPECT_EQ(summary_without_wall_times(path), summary_without_wall_times(b.at(name)))
          << what << ": summary.json";
    else
      EXPECT_TRUE(read_bytes(path) == read_bytes(b.at(name))) << what << ": " << name;
  }
}

/// The step of DIR/frames/*_SSSSSS.* or DIR/state_SSSSSS.csv, -1 for other files.
long file_step(const fs::path& p) {
  const std::string stem = p.stem().string();
  const auto u = stem.rfind('_');
  if (u == std::string::npos) return -1;
  const std::string digits = stem.substr(u + 1);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stol(digits);
}

struct Case {
  std::string example;            // under examples/
  std::vector<std::string> sets;  // shrink it to a second or so
  long checkpoint_every = 0;
  int threads = 1;
  int resume_threads = 0;  // 0 = threads
};

RunOptions quiet(const fs::path& dir) {
  RunOptions o;
  o.directory = dir.string();
  o.progress = false;
  return o;
}

/// Runs the case straight through, then with checkpoints, then resumes a copy of the
/// checkpointed run's directory from its first, a middle and its last checkpoint, as a stopped
/// run would leave it (the files written after the checkpoint removed; energy.csv left longer):
/// every result must be the uninterrupted run's, byte for byte.
void check_resume(const std::string& name, const Case& c) {
  // (the process id in the name: two checkouts' test runs at once do not share the folder)
  const fs::path root =
      fs::path(testing::TempDir()) / ("etdem_ckpt_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(root);
  const std::string file = std::string(ETDEM_SOURCE_DIR) + "/examples/" + c.example;
  std::vector<std::string> sets = c.sets;
  sets.push_back("simulation.threads=" + std::to_string(c.threads));
  const Scenario plain = load_scenario(file, sets);
  sets.push_back("output.checkpoint_every=" + std::to_string(c.checkpoint_every));
  sets.push_back("output.checkpoint_keep=1000");
  const Scenario sc = load_scenario(file, sets);
  ASSERT_EQ(plain.content_hash, sc.content_hash) << "checkpoint keys must not change the hash";

  run_scenario(plain, quiet(root / "ref"));
  run_scenario(sc, quiet(root / "ckpt"));
  expect_same_run(root / "ref", root / "ckpt", name + ": writing checkpoints changed the run");

  std::vector<long> steps;
  for (const auto& e : fs::directory_iterator(root / "ckpt" / "checkpoints"))
    steps.push_back(file_step(e.path()));
  std::sort(steps.begin(), steps.end());
  ASSERT_GE(steps.size(), 2u) << name;
  const long n = sc.steps();
  EXPECT_EQ(steps.back(), (n - 1) / c.checkpoint_every * c.checkpoint_every) << name;
  for (const long k : {steps.front(), steps[steps.size() / 2], steps.back()}) {
    const fs::path dir = root / fmt::format("resume_{}", k);
    fs::copy(root / "ckpt", dir, fs::copy_options::recursive);
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.is_regular_file() && e.path().string().find("checkpoints") == std::string::npos &&
          file_step(e.path()) > k)
        fs::remove(e.path());
    fs::remove(dir / "state.csv");
    fs::remove(dir / "summary.json");
    fs::remove(dir / "particles.pvd");
    RunOptions o = quiet(dir);
    o.resume = checkpoint_path(dir.string(), k);
    Scenario resumed = sc;  // the thread count is not part of the scenario's hash
    if (c.resume_threads > 0) resumed.settings.threads = c.resume_threads;
    const RunResult r = run_scenario(resumed, o);
    EXPECT_EQ(r.steps, n);
    expect_same_run(root / "ref", dir, fmt::format("{}: resumed at step {}", name, k));
  }
  fs::remove_all(root);
}

}  // namespace

// Spheres poured into a box whose right wall an event removes in the middle of the run; every
// solver with the resting pass, and ETM and the wall correction without it.
TEST(Checkpoint, SpherePourEverySolver) {
  const std::vector<std::string> pour = {"fill[0].count=120", "simulation.duration=0.3",
                                         "event[0].time=0.15", "output.every=20"};
  for (const std::string solver : {"etm", "etm-priority", "sqm", "smm", "lzb", "jolt"}) {
    Case c{"repose/spheres.toml", pour, 40};
    c.sets.push_back("simulation.solver=\"" + solver + "\"");
    check_resume("spheres_" + solver, c);
  }
  for (const std::string resting : {"etm", "wall-correction"}) {
    Case c{"repose/spheres.toml", pour, 40};
    c.sets.push_back("simulation.resting=\"" + resting + "\"");
    c.sets.push_back("material[0].rolling_friction=0");  // acts in the resting pass only
    check_resume("spheres_resting_" + resting, c);
  }
}

// Written with two threads, resumed with one (results do not depend on the thread count).
TEST(Checkpoint, CubesTwoThreadsResumedWithOne) {
  check_resume("cubes", {"repose/cubes.toml",
                         {"fill[0].count=96", "simulation.duration=0.25", "event[0].time=0.1",
                          "output.every=25", "output.state_every=50"},
                         30,
                         2,
                         1});
}

TEST(Checkpoint, DropBoxSnapshots) {
  check_resume("drop_box", {"drop_box.toml", {"simulation.duration=0.8"}, 100});
}

TEST(Checkpoint, CompoundCrosses) {
  check_resume("crosses",
               {"tet_crosses.toml", {"fill[0].count=20", "simulation.duration=0.3"}, 45});
}

TEST(Checkpoint, MeshChute) {
  check_resume("chute", {"mesh_chute.toml", {"fill[0].count=30", "simulation.duration=0.4"}, 60});
}

TEST(Checkpoint, LevelSetRocks) {
  check_resume("rocks", {"levelset/rock_flow.toml",
                         {"fill[0].count=6", "fill[1].count=8", "fill[2].count=4",
                          "simulation.duration=0.25", "event[0].time=0.1", "event[1].time=0.1",
                          "event[2].time=0.1", "event[3].time=0.1"},
                         50});
}

TEST(Checkpoint, Terrain) {
  check_resume("terrain", {"levelset/terrain_slide.toml", {"simulation.duration=0.3"}, 70});
}

// A net under its own weight on the avalanche terrain, a dozen rocks upstream: the links' state
// and net_barrier.csv continue exactly.
TEST(Checkpoint, Net) {
  check_resume("net", {"avalanche/net.toml",
                       {"simulation.duration=0.05", "fill[0].count=4", "fill[1].count=8"},
                       30});
}

// Sleeping islands: the pile falls asleep before some checkpoints and the removed wall wakes it
// after them (rest times and asleep flags are carried).
TEST(Checkpoint, SleepingPile) {
  check_resume("sleep",
               {"repose/spheres.toml",
                {"fill[0].count=120", "simulation.duration=0.8", "event[0].time=0.6",
                 "output.every=40", "simulation.sleep_velocity=0.01", "simulation.sleep_time=0.1"},
                40});
}
