// The settings schema and the solver registry: the docs' key tables are the schema's, every
// default lies in its own range, and every bounded setting rejects a value just outside its
// range with a one-line error naming the key (cases generated from the schema).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "etdem/io/scenario.hpp"
#include "etdem/io/settings_schema.hpp"
#include "etdem/world/solver_registry.hpp"
#include "etdem/world/world.hpp"

namespace etdem {
namespace {

const std::string kScenario = R"(
[simulation]
dt = 0.001
duration = 0.01
[[material]]
name = "rock"
[[shape]]
name = "grain"
type = "sphere"
radius = 0.01
[[body]]
shape = "grain"
material = "rock"
position = [0.0, 0.0, 0.0]
)";

/// A value just outside `r` (below it when it has a lower end), as TOML text.
std::string outside(const SettingRange& r, bool integer) {
  const double step = integer ? 1.0 : 1e-3;
  const double v =
      r.lo > -1e300 ? (r.lo_open ? r.lo : r.lo - step) : (r.hi_open ? r.hi : r.hi + step);
  return integer ? std::to_string(static_cast<long long>(v)) : fmt::format("{:.17g}", v);
}

/// The error message of loading kScenario with one override, "" when it loads.
std::string error_of(const std::string& set) {
  try {
    (void)parse_scenario(kScenario, "schema.toml", {set});
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

template <class T>
void expect_rejects_outside(const SettingTable<T>& table, const std::string& prefix) {
  for (const Setting<T>& s : table.settings) {
    if (!s.range.bounded()) continue;
    const bool integer = s.kind == SettingKind::Integer;
    const std::string key = prefix + "." + std::string(s.key);
    const std::string msg = error_of(key + "=" + outside(s.range, integer));
    EXPECT_NE(msg.find(key), std::string::npos) << key << ": " << msg;
    EXPECT_NE(msg.find("must be"), std::string::npos) << key << ": " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

template <class T>
void expect_defaults_valid(const SettingTable<T>& table) {
  const T defaults{};
  for (const Setting<T>& s : table.settings) {
    if (s.required) continue;
    const SettingValue v = s.get(defaults);
    if (const double* d = std::get_if<double>(&v)) {
      EXPECT_TRUE(s.range.contains(*d)) << table.name << "." << s.key;
    }
    if (const long* l = std::get_if<long>(&v)) {
      EXPECT_TRUE(s.range.contains(static_cast<double>(*l))) << table.name << "." << s.key;
    }
    if (const std::string* str = std::get_if<std::string>(&v); str && !s.choices.empty()) {
      EXPECT_NE(std::find(s.choices.begin(), s.choices.end(), *str), s.choices.end())
          << table.name << "." << s.key;
    }
  }
}

TEST(SettingsSchema, DocsTablesAreGeneratedFromTheSchema) {
  const std::string path = std::string(ETDEM_SOURCE_DIR) + "/docs/scenario.md";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(update_schema_blocks(text.str()), text.str())
      << "docs/scenario.md differs from the settings schema: run "
         "`etdem schema --update docs/scenario.md`";
  for (const std::string& name : schema_names())
    EXPECT_NE(text.str().find("<!-- schema " + name + " -->"), std::string::npos) << name;
}

TEST(SettingsSchema, DefaultsLieInTheirRanges) {
  for (const SettingTable<Scenario>& t : simulation_schema()) expect_defaults_valid(t);
  expect_defaults_valid(material_schema());
  expect_defaults_valid(output_schema());
}

TEST(SettingsSchema, EveryBoundedSettingRejectsAValueOutsideItsRange) {
  for (const SettingTable<Scenario>& t : simulation_schema()) expect_rejects_outside(t, t.name);
  expect_rejects_outside(material_schema(), "material[0]");
  expect_rejects_outside(output_schema(), "output");
}

TEST(SettingsSchema, OverridesReachTheirFields) {
  const Scenario sc =
      parse_scenario(kScenario, "schema.toml",
                     {"simulation.etm.lambda=50", "simulation.etm-priority.ordering=velocity",
                      "simulation.lzb.model=bi", "simulation.pgs.iterations=7",
                      "material[0].friction=0.25", "output.every=3"});
  EXPECT_EQ(sc.settings.solver_settings<EtmSettings>().lambda, 50);
  EXPECT_EQ(sc.settings.solver_settings<EtmPrioritySettings>().ordering,
            EtmPrioritySettings::Ordering::Velocity);
  EXPECT_EQ(sc.settings.solver_settings<LzbSettings>().model, LzbSettings::Model::Bi);
  EXPECT_EQ(sc.settings.resting_pass.iterations, 7);
  EXPECT_EQ(sc.materials[0].friction, 0.25);
  EXPECT_EQ(sc.output.every, 3);
}

TEST(SettingsSchema, ChoicesAreChecked) {
  for (const std::string& key :
       {std::string("simulation.solver"), std::string("simulation.resting"),
        std::string("simulation.etm-priority.grouping"), std::string("simulation.lzb.model")}) {
    const std::string msg = error_of(key + "=\"nosuch\"");
    EXPECT_NE(msg.find(key), std::string::npos) << msg;
    EXPECT_NE(msg.find("must be one of"), std::string::npos) << msg;
  }
  // A setting with choices that was a boolean once: `share_islands = true` names the choices.
  const std::string msg = error_of("simulation.share_islands=true");
  EXPECT_NE(msg.find("simulation.share_islands"), std::string::npos) << msg;
  EXPECT_NE(msg.find("must be one of \"auto\", \"on\", \"off\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("value true"), std::string::npos) << msg;
  EXPECT_EQ(parse_scenario(kScenario, "schema.toml", {"simulation.share_islands=\"off\""})
                .settings.share_islands,
            WorldSettings::IslandSharing::kOff);
}

TEST(SettingsSchema, RangeText) {
  EXPECT_EQ((SettingRange{1, 1e6}.text()), "[1, 1e6]");
  EXPECT_EQ((SettingRange{0, 1, false, true}.text()), "[0, 1)");
  EXPECT_EQ((SettingRange{0, 10, true, false}.text()), "(0, 10]");
  EXPECT_EQ((SettingRange{0}.text()), ">= 0");
  EXPECT_EQ((SettingRange{}.text()), "");
}

TEST(SolverRegistry, EverySolverIsBuiltHasASettingsTableAndNamesItself) {
  ASSERT_FALSE(solver_registry().empty());
  for (const SolverInfo& info : solver_registry()) {
    WorldSettings s;
    s.solver = info.name;
    const std::unique_ptr<Solver> solver = make_solver(s);
    EXPECT_STREQ(solver->name(), info.name);
    EXPECT_NE(find_simulation_table(std::string("simulation.") + info.settings_table), nullptr)
        << info.name;
    EXPECT_EQ(find_solver(info.name), &info);
  }
  EXPECT_EQ(find_solver("nosuch"), nullptr);
  EXPECT_EQ(supported_shapes_text(*find_solver("jolt")), "spheres and planes");
  EXPECT_EQ(supported_shapes_text(*find_solver("etm")), "every shape");
}

}  // namespace
}  // namespace etdem
