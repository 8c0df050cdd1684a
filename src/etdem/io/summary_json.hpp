// summary.json: what a run did, in one small machine-readable file (docs/scenario.md lists the
// keys): steps, times, threads, bodies, contacts, islands, solver counters, the deepest
// penetration, the energy balance, the containers' extents (needed by `analyze repose`) and the
// wall-clock seconds of each phase of the step.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "etdem/core/math.hpp"

namespace etdem {

class World;
struct Scenario;

/// Facts about a run that the world does not know.
struct RunInfo {
  double wall_seconds = 0.0;           // simulation loop including output
  int threads = 1;                     // OpenMP threads used
  double max_relative_residual = 0.0;  // over every step (energy_csv.hpp relative_residual)
  int frames = 0;                      // VTK frames written
  double frame_seconds = 0.0;          // wall time spent writing them (part of wall_seconds)
  std::string status = "completed";    // or the error that stopped the run
};

nlohmann::json make_summary(const Scenario& scenario, const World& world, const RunInfo& info);

/// Writes JSON with 2-space indentation; throws InputError when it cannot.
void write_json(const std::string& path, const nlohmann::json& j);

/// Reads a JSON file; throws InputError naming the file when it cannot be opened or parsed.
nlohmann::json read_json(const std::string& path);

/// An open-top (or closed) box container: where the repose analysis lays its grid.
struct ContainerExtents {
  std::string name;
  Vec3 min{0, 0, 0}, max{0, 0, 0};  // [m]
};

/// The first container listed in a summary.json; nullopt when the run had none. Throws
/// InputError when the file cannot be read or parsed.
std::optional<ContainerExtents> read_container(const std::string& summary_path);

}  // namespace etdem
