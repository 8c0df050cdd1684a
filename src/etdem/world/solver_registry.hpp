// The solver registry: one entry per collision solver, built from the records the solvers
// declare beside themselves (solvers/solver_record.hpp: name, summary, shapes, friction,
// stiffness, factory and the keys of its table) and listed in world/solver_list.hpp. Here each
// record is placed on its settings struct in WorldSettings: the loader checks names and shapes
// against the registry and reads each solver's table through its keys, the world builds its
// solver from it and the scenario docs list it. Adding a solver is its files in solvers/ (the
// solver, its settings struct, their keys and its record) and one entry in solver_list.hpp.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "etdem/core/setting.hpp"
#include "etdem/shapes/shape.hpp"
#include "etdem/solvers/solver.hpp"
#include "etdem/solvers/solver_record.hpp"

namespace etdem {

struct WorldSettings;

/// A solver's record (SolverRecord) placed on its settings struct in WorldSettings.
struct SolverInfo {
  const char* name;            // WorldSettings::solver
  const char* settings_table;  // its parameters: [simulation.<settings_table>]
  const char* summary;         // one line for the docs
  std::function<std::unique_ptr<Solver>(const WorldSettings&)> make;
  /// The keys of [simulation.<settings_table>], on the solver's settings in WorldSettings.
  std::vector<Setting<WorldSettings>> settings;
  unsigned shapes = kAllShapes;  // shape types its bodies may have (shape_bit)
  bool friction = true;          // applies Coulomb friction
  bool stiffness = false;        // reads the materials' contact stiffness

  bool supports(ShapeType t) const { return (shapes & shape_bit(t)) != 0; }
};

/// Every solver, in the order of world/solver_list.hpp (that of docs/solvers.md).
std::span<const SolverInfo> solver_registry();
/// The record named `name`; nullptr when there is none.
const SolverInfo* find_solver(std::string_view name);
/// "spheres and planes": the shape types a solver supports, for messages and docs.
std::string supported_shapes_text(const SolverInfo& info);

/// Creates the solver named in the settings; throws std::invalid_argument for an unknown name.
std::unique_ptr<Solver> make_solver(const WorldSettings& settings);

/// The names of the registry, in its order.
const std::vector<std::string>& solver_names();

/// The values of WorldSettings::resting: "pgs" (the hybrid inelastic contact pass after the
/// collision solver) and "etm" (resting contacts inside the collision solver with e = 0).
const std::vector<std::string>& resting_names();

}  // namespace etdem
