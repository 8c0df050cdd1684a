#include "etdem/world/solver_registry.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "etdem/solvers/etm.hpp"
#include "etdem/solvers/etm_priority.hpp"
#include "etdem/solvers/jolt.hpp"
#include "etdem/solvers/lzb.hpp"
#include "etdem/solvers/smm.hpp"
#include "etdem/solvers/sqm.hpp"
#include "etdem/world/settings.hpp"

namespace etdem {
namespace {

/// A solver of type S built from its settings, the field `member` of WorldSettings.
template <class S, auto member>
std::unique_ptr<Solver> make_from(const WorldSettings& settings) {
  return std::make_unique<S>(settings.*member);
}

/// The solver's keys (`keys`, declared beside it) on its field `member` of WorldSettings.
template <auto member, auto keys>
std::vector<Setting<WorldSettings>> keys_of() {
  return setting::within(keys(), member);
}

const SolverInfo kSolvers[] = {
    {"etm", "etm", "energy tracking method (ETM 2014): sequential, energy tracked per contact",
     make_from<EtmSolver, &WorldSettings::etm>, keys_of<&WorldSettings::etm, etm_setting_keys>},
    {"etm-priority", "etm-priority", "modified ETM (2024): grouped priority queue",
     make_from<EtmPrioritySolver, &WorldSettings::etm_priority>,
     keys_of<&WorldSettings::etm_priority, etm_priority_setting_keys>},
    {"sqm", "sqm", "sequential impulse method (ETM 2014 appendix)",
     make_from<SqmSolver, &WorldSettings::sqm>, keys_of<&WorldSettings::sqm, sqm_setting_keys>},
    {"smm", "smm", "simultaneous impulse method (ETM 2014 appendix): one linear system",
     make_from<SmmSolver, &WorldSettings::smm>, keys_of<&WorldSettings::smm, smm_setting_keys>},
    {"lzb", "lzb", "LZB multiple impacts (2009): impulse-time integration, frictionless",
     make_from<LzbSolver, &WorldSettings::lzb>, keys_of<&WorldSettings::lzb, lzb_setting_keys>,
     kAllShapes, /*friction=*/false, /*stiffness=*/true},
    {"jolt", "jolt", "velocity jolts on particles (sphere-impulse appendix B)",
     make_from<JoltSolver, &WorldSettings::jolt>, keys_of<&WorldSettings::jolt, jolt_setting_keys>,
     shape_bit(ShapeType::Sphere) | shape_bit(ShapeType::Plane)},
};

}  // namespace

std::span<const SolverInfo> solver_registry() {
  return kSolvers;
}

const SolverInfo* find_solver(std::string_view name) {
  for (const SolverInfo& s : kSolvers)
    if (name == s.name) return &s;
  return nullptr;
}

std::string supported_shapes_text(const SolverInfo& info) {
  std::vector<std::string> names;
  for (int t = 0; t < static_cast<int>(ShapeType::Count); ++t)
    if (info.supports(static_cast<ShapeType>(t)))
      names.push_back(std::string(shape_type_name(static_cast<ShapeType>(t))) + "s");
  if (names.size() == static_cast<std::size_t>(ShapeType::Count)) return "every shape";
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return out;
}

std::unique_ptr<Solver> make_solver(const WorldSettings& s) {
  if (const SolverInfo* info = find_solver(s.solver)) return info->make(s);
  throw std::invalid_argument(fmt::format("unknown solver '{}'", s.solver));
}

const std::vector<std::string>& solver_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const SolverInfo& s : kSolvers) n.push_back(s.name);
    return n;
  }();
  return names;
}

const std::vector<std::string>& resting_names() {
  static const std::vector<std::string> names = {"pgs", "etm", "wall-correction"};
  return names;
}

}  // namespace etdem
