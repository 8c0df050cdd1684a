#include "etdem/world/solver_registry.hpp"

#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "etdem/world/settings.hpp"
#include "etdem/world/solver_list.hpp"

namespace etdem {
namespace {

/// The registry's entry of a record: its factory and keys reading the record's settings struct
/// in WorldSettings.
template <class S>
SolverInfo info_of(const SolverRecord<S>& r) {
  SolverInfo info{
      .name = r.name,
      .settings_table = r.name,
      .summary = r.summary,
      .make = [make = r.make](const WorldSettings& w) { return make(w.solver_settings<S>()); },
      .settings = setting::within<WorldSettings>(
          r.keys(), [](WorldSettings& w) -> S& { return w.solver_settings<S>(); }),
      .shapes = r.shapes,
      .friction = r.friction,
      .stiffness = r.stiffness};
  return info;
}

const std::vector<SolverInfo>& solvers() {
  static const std::vector<SolverInfo> all =
      std::apply([](const auto*... record) { return std::vector<SolverInfo>{info_of(*record)...}; },
                 kSolverRecords);
  return all;
}

}  // namespace

std::span<const SolverInfo> solver_registry() {
  return solvers();
}

const SolverInfo* find_solver(std::string_view name) {
  for (const SolverInfo& s : solvers())
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
    for (const SolverInfo& s : solvers()) n.push_back(s.name);
    return n;
  }();
  return names;
}

const std::vector<std::string>& resting_names() {
  static const std::vector<std::string> names = {"pgs", "etm", "wall-correction"};
  return names;
}

}  // namespace etdem
