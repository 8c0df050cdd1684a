// Absurd numbers in a scenario end a run with one clear message and a summary, never with a
// crash, an unnamed error or a step that crawls: a body 1e18 m away, a velocity of 1e308 m/s,
// gravity of 1e12 m/s^2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "etdem/io/run.hpp"
#include "etdem/io/scenario.hpp"
#include "etdem/io/scenario_error.hpp"
#include "etdem/world/world.hpp"

namespace etdem {
namespace {

namespace fs = std::filesystem;

std::string scenario(const std::string& extra_body,
                     const std::string& gravity = "[0.0, 0.0, -9.81]", int grains = 400) {
  return R"(
[simulation]
dt = 0.001
duration = 0.005
gravity = )" +
         gravity + R"(
[[material]]
name = "m"
density = 1000.0
restitution = 0.5
friction = 0.3
[[shape]]
name = "s"
type = "sphere"
radius = 0.01
[[body]]
shape = "s"
material = "m"
position = [0.0, 0.0, 0.1]
)" + extra_body +
         R"(
[[fill]]
shape = "s"
material = "m"
count = )" +
         std::to_string(grains) + R"(
region = { min = [0.0, 0.0, 0.2], max = [0.3, 0.3, 0.5] }
seed = 1
[output]
every = 0
)";
}

fs::path temp_dir(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("etdem_hostile_" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  return d;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(HostileNumbers, AbsurdCoordinatesAreRefusedByKey) {
  // A body 1e18 m away is no scene (the broad phase copes with one: test_broad_phase); the
  // loader names the key before any work.
  for (const char* x : {"1e18", "-1e18", "1e300"}) {
    try {
      parse_scenario(scenario(std::string("[[body]]\nshape = \"s\"\nmaterial = \"m\"\n"
                                          "position = [") +
                              x + ", 0.0, 0.0]\n"),
                     "far.toml");
      FAIL() << x;
    } catch (const ScenarioError& e) {
      EXPECT_NE(std::string(e.what()).find("body[1].position: lies beyond"), std::string::npos)
          << e.what();
    }
  }
  // A vertex at 1e38 m: named as such (it was reported as a flat hull).
  const std::string big = scenario("") + R"(
[[shape]]
name = "big"
type = "polyhedron"
vertices = [[0, 0, 0], [1e38, 0, 0], [0, 1e38, 0], [0, 0, 1e38]]
)";
  try {
    parse_scenario(big, "big.toml");
    FAIL();
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("vertex 1 (1e+38, 0, 0) lies beyond"), std::string::npos)
        << e.what();
  }
}

TEST(HostileNumbers, GrainsTooSmallForDoublePrecisionAreRefused) {
  const std::string tiny = scenario(R"([[body]]
shape = "tiny"
material = "m"
position = [0.5, 0.5, 0.5]
)") + R"(
[[shape]]
name = "tiny"
type = "polyhedron"
vertices = [[0, 0, 0], [1e-40, 0, 0], [0, 1e-40, 0], [0, 0, 1e-40]]
)";
  const Scenario sc = parse_scenario(tiny, "tiny.toml");
  try {
    World world;
    build_world(sc, world);  // where the scene's scale is known
    FAIL() << "a 1e-40 m grain passed";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("shape 'tiny': its thinnest extent is below 1e-9"),
              std::string::npos)
        << e.what();
  }
}

TEST(HostileNumbers, ANegativeTableIndexInSetIsNamedAsSuch) {
  try {
    parse_scenario(scenario(""), "s.toml", {"material[-1].friction=0.3"});
    FAIL();
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("index -1 of 'material' is negative"), std::string::npos)
        << e.what();
  }
}

TEST(HostileNumbers, AnOverflowingVelocityNamesTheBodyAndLeavesAFailedSummary) {
  const Scenario sc = parse_scenario(
      scenario("[[body]]\nshape = \"s\"\nmaterial = \"m\"\nposition = [1.0, 0.0, 0.0]\n"
               "velocity = [1e308, 0.0, 0.0]\n"),
      "fast.toml");
  const fs::path dir = temp_dir("fast");
  try {
    RunOptions options;
    options.directory = dir.string();
    options.progress = false;
    run_scenario(sc, options);
    FAIL() << "the run should have failed";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("body 1"), std::string::npos) << e.what();
  }
  const std::string summary = read(dir / "summary.json");
  EXPECT_NE(summary.find("\"status\": \"failed: non-finite energy of body 1"), std::string::npos)
      << summary;
}

TEST(HostileNumbers, HugeGravityIsStoppedAtTheFirstStepNotAfterMinutes) {
  const Scenario sc = parse_scenario(scenario("", "[0.0, 0.0, -1e12]", 1500), "gravity.toml");
  const fs::path dir = temp_dir("gravity");
  try {
    RunOptions options;
    options.directory = dir.string();
    options.progress = false;
    run_scenario(sc, options);
    FAIL() << "the run should have failed";
  } catch (const std::exception& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("step 0"), std::string::npos) << what;
    EXPECT_NE(what.find("candidate pairs"), std::string::npos) << what;
  }
  EXPECT_NE(read(dir / "summary.json").find("\"status\": \"failed: step 0"), std::string::npos);
}

}  // namespace
}  // namespace etdem
