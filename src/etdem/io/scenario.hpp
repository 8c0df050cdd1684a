// The scenario loader: reads a TOML scenario file into its plain data (io/scenario_spec.hpp),
// validates it, and builds the World it describes. Nothing here runs a simulation; nothing in
// the world parses anything.
#pragma once

#include <string>
#include <vector>

#include "etdem/io/scenario_error.hpp"
#include "etdem/io/scenario_spec.hpp"

namespace etdem {

class World;

/// Reads, overrides and validates a scenario. `overrides` are "key=value" strings (e.g.
/// "simulation.dt=0.001", "simulation.etm.lambda=50", "material[0].friction=0.3") applied to the
/// TOML tree before validation. Throws ScenarioError ("FILE[:LINE]: KEY: message (value V)") for
/// anything wrong. Bodies that overlap at the start are found by build_world, which builds the
/// world once, for the run or the check.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {});

/// Same as load_scenario for TOML text already in memory (`file` is used in messages only).
Scenario parse_scenario(const std::string& text, const std::string& file,
                        const std::vector<std::string>& overrides = {});

/// Adds the scenario's materials, shapes and bodies to an empty world and sets its settings and
/// events, then checks the initial state (scenario_check.hpp: no two bodies and no body and wall
/// overlap; throws ScenarioError). Returns where each body came from, indexed by body id.
std::vector<BodyOrigin> build_world(const Scenario& scenario, World& world);

}  // namespace etdem
