// [[net]] tables: reading and checking a flexible net (docs/scenario.md, "[[net]]"), and adding
// its nodes and links to a world (world/net.hpp).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "etdem/io/scenario_spec.hpp"
#include "etdem/io/toml_reader.hpp"

namespace etdem {

class World;

/// Reads one [[net]] table into a NetSpec, adds the nodes' sphere shape "NAME.node" to the
/// scenario's shape table and checks every key (one-line ScenarioError naming file, key and
/// value). Needs [simulation] (dt) and the materials read. `names` holds the net names so far.
NetSpec read_net(const TomlReader& r, Scenario& sc, std::set<std::string>& names);

/// Adds the nets' nodes as sphere bodies (clamped nodes fixed) and their links to the world,
/// appending one BodyOrigin per node.
void add_nets(const Scenario& sc, const std::vector<int>& material_id, World& world,
              std::vector<BodyOrigin>& origin);

}  // namespace etdem
