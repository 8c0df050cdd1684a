// A collision solver's record: everything the engine asks of a solver besides resolve(), declared
// beside the solver (solvers/<name>.cpp) on its own settings struct S: its name (the value of
// `simulation.solver` and the table [simulation.<name>] of its parameters), one line for the
// docs, the shape types it handles, whether it applies friction and reads the contact stiffness,
// how it is built from its settings, and the keys of its table (core/setting.hpp: key, range,
// unit, documentation and the field each fills; the default is the field's initial value).
//
// The solver registry (world/solver_list.hpp lists the records, world/solver_registry.hpp looks
// them up) places each record's settings struct in WorldSettings; the loader, the settings schema
// and docs/scenario.md read the record through it.
#pragma once

#include <memory>
#include <vector>

#include "etdem/core/setting.hpp"
#include "etdem/shapes/shape_kind.hpp"
#include "etdem/solvers/solver.hpp"

namespace etdem {

constexpr unsigned shape_bit(ShapeType t) {
  return 1u << static_cast<int>(t);
}
constexpr unsigned kAllShapes = ~0u;

template <class S>
struct SolverRecord {
  using Settings = S;

  const char* name;     // simulation.solver, and its parameters' table [simulation.<name>]
  const char* summary;  // one line for the docs
  std::unique_ptr<Solver> (*make)(const S&);
  std::vector<Setting<S>> (*keys)();  // the keys of [simulation.<name>]
  unsigned shapes = kAllShapes;       // shape types its bodies may have (shape_bit)
  bool friction = true;               // applies Coulomb friction
  bool stiffness = false;             // reads the materials' contact stiffness
};

/// The factory of a record: solver type T built from its settings.
template <class T, class S>
std::unique_ptr<Solver> make_solver_from(const S& settings) {
  return std::make_unique<T>(settings);
}

}  // namespace etdem
