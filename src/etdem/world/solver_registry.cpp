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

const SolverInfo kSolvers[] = {
    {"etm", "etm", "energy tracking method (ETM 2014): sequential, energy tracked per contact",
     [](const WorldSettings& s) -> std::unique_ptr<Solver> {
       return std::make_unique<EtmSolver>(s.etm);
     }},
    {"etm-priority", "etm-priority", "modified ETM (2024): grouped priority queue",
     [](const WorldSettings& s) -> std::unique_ptr<Solver> {
       return std::make_unique<EtmPrioritySolver>(s.etm_priority);
     }},
    {"sqm", "sqm", "sequential impulse method (ETM 2014 appendix)",
     [](const WorldSettings& s) -> std::unique_ptr<Solver> {
       return std::make_unique<SqmSolver>(s.sqm);
     }},
    {"smm", "smm", "simultaneous impulse method (ETM 2014 appendix): one linear system",
     [](const WorldSettings& s) -> std::unique_ptr<Solver> {
       return std::make_unique<SmmSolver>(s.smm);
     }},
    {"lzb", "lzb", "LZB multiple impacts (2009): impulse-time integration, frictionless",
     [](const WorldSettings& s) -> std::unique_ptr<Solver> {
       return std::make_unique<LzbSolver>(s.lzb);
     },
     kAllShapes, /*friction=*/false, /*stiffness=*/true},
    {"jolt", "jolt", "velocity jolts on particles (sphere-impulse appendix B)",
     [](const WorldSettings& s) -> std::unique_ptr<Solver> {
       return std::make_unique<JoltSolver>(s.jolt);
     },
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
