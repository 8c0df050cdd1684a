#include "etdem/io/summary_json.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>

#include "etdem/core/stage_profile.hpp"
#include "etdem/core/version.hpp"
#include "etdem/io/energy_csv.hpp"
#include "etdem/io/scenario_error.hpp"
#include "etdem/io/scenario_spec.hpp"
#include "etdem/world/world.hpp"

namespace etdem {
namespace {

nlohmann::json vec_json(const Vec3& v) {
  return {v.x(), v.y(), v.z()};
}

}  // namespace

nlohmann::json make_summary(const Scenario& sc, const World& world, const RunInfo& info) {
  using nlohmann::json;
  const RunTotals& t = world.totals();
  const Bodies& b = world.bodies;
  const long steps = t.steps;
  const double per_step = steps > 0 ? 1.0 / static_cast<double>(steps) : 0.0;

  long dynamic = 0, planes = 0;
  double thinnest = std::numeric_limits<double>::infinity();
  for (int i = 0; i < b.count(); ++i) {
    const int s = b.shape[i];
    if (std::isinf(world.shapes.bounding_radius[s])) ++planes;  // unbounded: a plane
    if (!b.is_dynamic(i)) continue;
    ++dynamic;
    thinnest = std::min(thinnest, world.shapes.min_thickness(s));
  }

  const EnergyLedger& l = world.ledger();
  json j;
  j["etdem_version"] = version_string();  // the build that wrote it (etdem --version)
  j["scenario"] = sc.file;
  j["status"] = info.status;
  j["steps"] = steps;
  j["dt"] = world.settings.dt;
  j["simulated_time"] = world.time();
  j["wall_time"] = info.wall_seconds;
  j["steps_per_second"] = info.wall_seconds > 0.0 ? steps / info.wall_seconds : 0.0;
  j["threads"] = info.threads;
  j["frames"] = info.frames;
  j["frame_seconds"] = info.frame_seconds;
  j["bodies"] = {{"total", b.count()}, {"dynamic", dynamic}, {"planes", planes}};
  // Memory of the shared level-set grids (grid values, gradients, nodes, drawing surface).
  // `slope`: the steepest grid's measured Lipschitz bound (LevelSetGrid::slope), which the
  // node cull uses; above sqrt(3) the grid is not an exact distance near its surface.
  std::size_t level_set_bytes = 0;
  double slope = 0.0;
  for (const LevelSet& ls : world.shapes.level_sets) {
    level_set_bytes += ls.memory_bytes();
    slope = std::max(slope, ls.grid.slope);
  }
  j["level_sets"] = {
      {"shapes", world.shapes.level_sets.size()}, {"bytes", level_set_bytes}, {"slope", slope}};
  // Memory of the terrains (band nodes and columns, heights) and what their bands hold.
  std::size_t terrain_bytes = 0, terrain_nodes = 0;
  double terrain_seconds = 0.0;
  for (const auto& t : world.shapes.terrains) {
    terrain_bytes += t->memory_bytes();
    terrain_nodes += t->nodes.size();
    terrain_seconds += t->build_seconds;
  }
  j["terrains"] = {{"count", world.shapes.terrains.size()},
                   {"bytes", terrain_bytes},
                   {"band_nodes", terrain_nodes},
                   {"build_seconds", terrain_seconds}};
  j["contacts"] = {{"total", t.contacts},
                   {"per_step_mean", t.contacts * per_step},
                   {"candidates_total", t.candidates},
                   {"candidates_per_step_mean", t.candidates * per_step}};
  j["islands"] = {{"total", t.islands},
                  {"per_step_mean", t.islands * per_step},
                  {"largest_island", t.largest_island}};
  j["narrow_phase"] = {{"node_lists_built", t.node_lists.built},
                       {"node_lists_reused", t.node_lists.reused},
                       {"listed_nodes_tested", t.node_lists.listed}};
  j["broad_phase"] = {{"pair_list_builds", t.pair_list_builds},
                      {"pair_list_updates", t.pair_list_updates},
                      {"steps_reusing_pairs", t.steps - t.pair_list_builds - t.pair_list_updates}};
  // Steps split because a grain turned fast (WorldSettings::substep_sweep).
  j["substeps"] = {{"split_steps", t.split_steps},
                   {"substeps", t.substeps},
                   {"redone_steps", t.redone_steps},
                   {"bound_reached", t.substep_bound_reached}};
  // Sleep (WorldSettings::sleep_velocity, sleep_unit): what slept, what woke, what was held.
  long asleep = 0;
  for (int i = 0; i < world.bodies.count(); ++i) asleep += world.bodies.is_asleep(i) ? 1 : 0;
  const bool regions = world.settings.sleep_unit == SleepUnit::kRegion;
  j["sleep"] = {{"sleep_velocity", world.settings.sleep_velocity},
                {"sleep_time", world.settings.sleep_time},
                {"unit", regions ? "region" : "island"},
                {"asleep_bodies_at_end", asleep},
                {"fell_asleep", t.fell_asleep},
                {"woken", t.woken},
                {regions ? "held_body_steps" : "asleep_island_steps", t.asleep_steps},
                {"wake_bound_reached", t.sleep_wake_bound_reached},
                {"energy_set_to_zero", t.sleep_energy}};
  j["solver"] = {{"name", world.settings.solver},
                 {"iterations", t.solver.iterations},
                 {"rounds", t.solver.rounds},
                 {"guards_fired", t.solver.guards_fired},
                 {"friction_fallbacks", t.solver.friction_fallbacks},
                 {"approaching_left", t.solver.approaching_left},
                 {"collisions", t.collisions}};
  j["resting"] = {{"treatment", world.settings.resting},
                  {"impulses", t.resting.iterations},
                  {"sweeps", t.resting.rounds},
                  {"sweep_bound_reached", t.resting.guards_fired},
                  {"shock_bound_reached", t.resting.shock_bound_reached},
                  {"blocked_islands", t.resting.blocked_islands},
                  {"block_leftovers", t.resting.block_leftovers},
                  {"energy_guards", t.resting.energy_guards},
                  {"friction_fallbacks", t.resting.friction_fallbacks},
                  {"approaching_left", t.resting.approaching_left},
                  {"wall_corrections", t.wall_corrections},
                  {"wall_rounds", t.wall_rounds},
                  {"wall_bound_reached", t.wall_bound_reached}};
  j["max_penetration"] = {
      {"m", t.max_penetration},
      {"smallest_grain_diameter", std::isfinite(thinnest) ? thinnest : 0.0},
      {"fraction_of_smallest_diameter",
       std::isfinite(thinnest) && thinnest > 0.0 ? t.max_penetration / thinnest : 0.0}};
  json energy = {{"final_total", l.total()},
                 {"dissipated", l.dissipated()},
                 {"residual", l.residual()},
                 {"relative_residual", relative_residual(l)},
                 {"max_relative_residual", info.max_relative_residual}};
  for (const LedgerColumn& c : kLedgerColumns) energy[c.name] = l.*c.member;
  j["energy"] = std::move(energy);
  json containers = json::array();
  for (const WallSpec& w : sc.walls)
    if (w.type == WallSpec::Type::Box)
      containers.push_back({{"name", w.name}, {"min", vec_json(w.min)}, {"max", vec_json(w.max)}});
  j["containers"] = containers;
  if (!containers.empty()) j["container"] = containers[0];
  const StepProfile& p = world.profile();
  json seconds = json::object(), calls = json::object();
  for (int k = 0; k < StepProfile::kPhases; ++k) {
    seconds[StepProfile::kNames[k]] = p.seconds[k];
    calls[StepProfile::kNames[k]] = p.calls[k];
  }
  seconds["total"] = p.total();
  j["profile_seconds"] = seconds;
  j["profile_calls"] = calls;
  // The stages inside the phases (this process's: rank 0's in a split run; every rank's
  // largest and mean under `ranks`).
  const StageProfile& st = world.stages();
  json stages = json::object();
  for (int k = 0; k < StageProfile::kStages; ++k) stages[StageProfile::kNames[k]] = st.seconds[k];
  j["profile_stages"] = stages;
  return j;
}

void write_json(const std::string& path, const nlohmann::json& j) {
  std::ofstream out(path);
  if (!out) throw InputError(path + ": cannot open for writing");
  out << j.dump(2) << "\n";
  if (!out) throw InputError(path + ": write failed (disk full?)");
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open (is this a run directory?)");
  try {
    nlohmann::json j;
    in >> j;
    return j;
  } catch (const nlohmann::json::exception& ex) {
    throw InputError(path + ": not valid JSON: " + ex.what());
  }
}

std::optional<ContainerExtents> read_container(const std::string& path) {
  const nlohmann::json j = read_json(path);
  if (!j.contains("container")) return std::nullopt;
  try {
    const auto& c = j.at("container");
    ContainerExtents e;
    e.name = c.at("name").get<std::string>();
    for (int a = 0; a < 3; ++a) {
      e.min[a] = c.at("min").at(a).get<double>();
      e.max[a] = c.at("max").at(a).get<double>();
    }
    return e;
  } catch (const nlohmann::json::exception& ex) {
    throw InputError(path + ": container: " + ex.what());
  }
}

}  // namespace etdem
