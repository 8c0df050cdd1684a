// The solver registry: one record per collision solver (its name, the table of its parameters
// and their keys, how to build it, what it can handle). The loader checks names and shapes
// against it and reads each solver's table through its keys, the world builds its solver from it
// and the scenario docs list it. Adding a solver is its files in solvers/ (the solver, its
// settings struct and their keys), its settings' field in WorldSettings (settings.hpp) and one
// record in solver_registry.cpp. An explicit table, no self-registration.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "etdem/core/setting.hpp"
#include "etdem/shapes/shape.hpp"
#include "etdem/solvers/solver.hpp"

namespace etdem {

struct WorldSettings;

constexpr unsigned shape_bit(ShapeType t) {
  return 1u << static_cast<int>(t);
}
constexpr unsigned kAllShapes = ~0u;

struct SolverInfo {
  const char* name;            // WorldSettings::solver
  const char* settings_table;  // its parameters: [simulation.<settings_table>]
  const char* summary;         // one line for the docs
  std::unique_ptr<Solver> (*make)(const WorldSettings&);
  /// The keys of [simulation.<settings_table>], on the solver's field of WorldSettings.
  std::vector<Setting<WorldSettings>> (*settings)();
  unsigned shapes = kAllShapes;  // shape types its bodies may have (shape_bit)
  bool friction = true;          // applies Coulomb friction
  bool stiffness = false;        // reads the materials' contact stiffness

  bool supports(ShapeType t) const { return (shapes & shape_bit(t)) != 0; }
};

/// Every solver, in the order of docs/solvers.md.
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
