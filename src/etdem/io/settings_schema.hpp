// The settings schema: every setting of a scenario file declared once, with its key, the field it
// fills, its default (the field's initial value), unit, valid range and one line of
// documentation (core/setting.hpp). The keys of each solver's table are declared beside the
// solver and reached through the solver registry; the others are declared here. The loader reads
// and validates the settings tables through it (so `--set` overrides are checked by the same
// rules), and the key tables of docs/scenario.md are generated from it (`etdem schema --markdown`;
// a test fails when the committed docs differ).
//
// Covered: [simulation] and its sub-tables (pgs and one per solver of the registry),
// [[material]] and [output]. The tables that describe geometry ([[shape]], [[body]], [[fill]],
// [[wall]], [[event]]) have keys that depend on a type and cross references; the loader reads
// them itself.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "etdem/core/setting.hpp"
#include "etdem/io/scenario_spec.hpp"
#include "etdem/io/toml_reader.hpp"

namespace etdem {

template <class T>
struct SettingTable {
  std::string name;   // TOML path: "simulation", "simulation.etm", "material", "output"
  std::string title;  // one line: what the table holds
  std::vector<Setting<T>> settings;
};

/// [simulation] first, then [simulation.pgs], then one table per solver of the registry (in its
/// order). Their target is the scenario (the world settings and the duration).
const std::vector<SettingTable<Scenario>>& simulation_schema();
/// The table of `simulation_schema()` named `name`; nullptr when there is none.
const SettingTable<Scenario>* find_simulation_table(std::string_view name);
const SettingTable<Material>& material_schema();
const SettingTable<OutputSettings>& output_schema();

/// Reads every setting of `table` that `r` holds into `target` (absent keys keep the target's
/// value; a required one is an error) and checks type, range and choices. Errors name the key
/// and the value. Does not call r.finish().
void read_settings(const TomlReader& r, const SettingTable<Scenario>& table, Scenario& target);
void read_settings(const TomlReader& r, const SettingTable<Material>& table, Material& target);
void read_settings(const TomlReader& r, const SettingTable<OutputSettings>& table,
                   OutputSettings& target);

/// The markdown table of the schema table `name` ("simulation.etm", "material", ...), or the
/// solver registry ("solvers"): one row per key. Throws std::invalid_argument for an unknown name.
std::string schema_markdown(std::string_view name);
/// Every name schema_markdown() knows, in the order of docs/scenario.md.
std::vector<std::string> schema_names();
/// `doc` with the text between each "<!-- schema NAME -->" line and the next
/// "<!-- end schema -->" line replaced by schema_markdown(NAME). Throws std::invalid_argument
/// for an unknown name or an unclosed block.
std::string update_schema_blocks(const std::string& doc);

}  // namespace etdem
