// The scenario loader on a TOML tree already in memory: what load_scenario and parse_scenario do
// after parsing, for trees built in code (the Python module's Scenario builder). Same overrides,
// same validation, same one-line messages; a node made in code has no line, so its messages name
// the file and the key only. Kept apart from scenario.hpp so that only its users see toml++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "etdem/io/scenario_spec.hpp"

namespace etdem {

/// Applies `overrides` to `root` (which is changed) and validates it; `file` names the scenario
/// in messages and is the directory relative file names are read from. Throws ScenarioError.
Scenario parse_scenario_tree(toml::table& root, const std::string& file,
                             const std::vector<std::string>& overrides = {});

/// FNV-1a hash of the tree as a canonical TOML literal, without simulation.threads and
/// output.checkpoint_every / checkpoint_keep (Scenario::content_hash).
std::uint64_t scenario_content_hash(const toml::table& root);

}  // namespace etdem
