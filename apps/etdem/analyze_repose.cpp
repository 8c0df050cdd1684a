// `etdem analyze repose DIR [--series]`: the angle of repose of a finished run's heap by the grid
// method of analysis/repose.hpp, on the container the run's summary.json names; its nodes are the
// shapes' surface nodes placed by state.csv (shapes.json), or each grain's top over its centre.
// Results to DIR/repose.json, or with --series one row per state_SSSSSS.csv snapshot to
// DIR/repose_series.csv.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "etdem/analysis/repose.hpp"
#include "etdem/io/scenario_error.hpp"
#include "etdem/io/shape_nodes.hpp"
#include "etdem/io/state_csv.hpp"
#include "etdem/io/summary_json.hpp"

namespace etdem::cli {
namespace {

nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nullptr;
}

ContainerExtents require_container(const std::string& dir) {
  const auto container = read_container(dir + "/summary.json");
  if (!container)
    throw InputError(dir +
                     "/summary.json: container: the run has no box container; the "
                     "repose analysis needs one ([[wall]] type = \"box\")");
  return *container;
}

/// The run's shapes.json, or nothing for runs written before it existed.
std::optional<std::map<std::string, ShapeNodes>> read_run_shapes(const std::string& dir) {
  const std::string path = dir + "/shapes.json";
  if (!std::filesystem::exists(path)) return std::nullopt;
  return read_shapes_json(path);
}

/// The heap's surface nodes (the shapes' nodes placed by state.csv), or, without shapes or for a
/// state.csv without shape names, one node per grain at its top over its centre.
struct HeapNodes {
  std::vector<Vec3> nodes;
  bool from_shapes = false;
};

HeapNodes heap_nodes(const std::optional<std::map<std::string, ShapeNodes>>& shapes,
                     const StateTable& state) {
  HeapNodes h;
  h.from_shapes = shapes.has_value();
  for (std::size_t k = 0; k < state.size() && h.from_shapes; ++k) {
    const auto it = shapes->find(state.shape_name[k]);
    if (it == shapes->end())
      h.from_shapes = false;
    else if (it->second.net.empty())  // a [[net]]'s nodes are not part of the heap
      append_surface_points(it->second, state.position[k], state.orientation[k], h.nodes);
  }
  if (!h.from_shapes) {
    h.nodes.clear();
    const std::vector<double> tops = state.top_offsets();
    for (std::size_t k = 0; k < state.size(); ++k)
      h.nodes.push_back(state.position[k] + Vec3(0, 0, tops[k]));
  }
  return h;
}

}  // namespace

int analyze_repose(const std::string& dir) {
  const StateTable state = read_state_csv(dir + "/state.csv");
  const ContainerExtents container = require_container(dir);
  const HeapNodes heap = heap_nodes(read_run_shapes(dir), state);
  const ReposeResult r = repose_angle_of_nodes(heap.nodes, container.min, container.max);
  const FloorMotion motion =
      floor_motion(state.position, state.velocity, container.min, container.max);
  nlohmann::json j;
  j["method"] = "ETM 2014 section 7.4: 8 x 16 grid, least-squares line per row";
  j["heights_from"] = heap.from_shapes ? "surface nodes (shapes.json)" : "grain tops over centres";
  j["container"] = {{"name", container.name},
                    {"min", {container.min.x(), container.min.y(), container.min.z()}},
                    {"max", {container.max.x(), container.max.y(), container.max.z()}}};
  j["long_axis"] = r.long_axis == 0 ? "x" : "y";
  j["grains"] = state.size();
  j["grains_over_floor"] = motion.grains;
  j["max_speed_over_floor"] = motion.max_speed;
  j["mean_speed_over_floor"] = motion.mean_speed;
  j["angles_deg"] = nlohmann::json::array();
  j["slopes"] = nlohmann::json::array();
  for (std::size_t k = 0; k < r.angles.size(); ++k) {
    j["angles_deg"].push_back(number_or_null(r.angles[k]));
    j["slopes"].push_back(number_or_null(r.slopes[k]));
  }
  j["intercepts_m"] = nlohmann::json::array();  // fitted height at the floor's centre
  for (double a : r.intercepts) j["intercepts_m"].push_back(number_or_null(a));
  j["cell_centres_m"] = nlohmann::json::array();  // along the long axis, from the floor's centre
  for (double c : r.cell_centres) j["cell_centres_m"].push_back(c);
  j["cells_per_row"] = r.points;
  j["mean_deg"] = number_or_null(r.mean);
  j["spread_deg"] = number_or_null(r.spread);
  j["min_deg"] = number_or_null(r.min);
  j["max_deg"] = number_or_null(r.max);
  j["rows_used"] = r.rows_used;
  j["heights_m"] = nlohmann::json::array();
  for (const auto& row : r.heights) {
    nlohmann::json jr = nlohmann::json::array();
    for (double h : row) jr.push_back(number_or_null(h));
    j["heights_m"].push_back(jr);
  }
  write_json(dir + "/repose.json", j);
  fmt::print("angle of repose ({} grains, container '{}', rows along {}, heights of {}):\n",
             state.size(), container.name, r.long_axis == 0 ? "x" : "y",
             heap.from_shapes ? "surface nodes" : "grain tops");
  for (std::size_t k = 0; k < r.angles.size(); ++k)
    fmt::print("  row {}: {} ({} cells)\n", k,
               std::isfinite(r.angles[k]) ? fmt::format("{:.2f} deg", r.angles[k]) : "n/a",
               r.points[k]);
  fmt::print("mean {:.2f} deg, spread {:.2f} deg ({} rows); written to {}/repose.json\n", r.mean,
             r.spread, r.rows_used, dir);
  fmt::print("{} grains over the floor, fastest {:.3g} m/s, mean {:.3g} m/s\n", motion.grains,
             motion.max_speed, motion.mean_speed);
  return kExitOk;
}

int analyze_repose_series(const std::string& dir) {
  namespace fs = std::filesystem;
  const ContainerExtents container = require_container(dir);
  const nlohmann::json summary = read_json(dir + "/summary.json");
  if (!summary.contains("dt") || !summary["dt"].is_number())
    throw InputError(dir + "/summary.json: dt: missing (a summary written by etdem run is needed)");
  const double dt = summary["dt"].get<double>();
  const auto shapes = read_run_shapes(dir);
  std::vector<std::pair<long, std::string>> snapshots;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() == 16 && name.rfind("state_", 0) == 0 && name.substr(12) == ".csv" &&
        name.find_first_not_of("0123456789", 6) == 12)
      snapshots.emplace_back(std::stol(name.substr(6, 6)), e.path().string());
  }
  if (ec) throw InputError(fmt::format("{}: cannot list the directory: {}", dir, ec.message()));
  if (snapshots.empty())
    throw InputError(dir +
                     ": no state_SSSSSS.csv snapshots; run with output.state_every = N to "
                     "follow the angle over time");
  std::sort(snapshots.begin(), snapshots.end());
  const std::string path = dir + "/repose_series.csv";
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw InputError(path + ": cannot be written");
  fmt::print(f,
             "step,time,mean_deg,spread_deg,min_deg,max_deg,rows_used,grains_over_floor,"
             "max_speed,mean_speed\n");
  fmt::print("{:>8} {:>9} {:>9} {:>9} {:>7} {:>11} {:>11}\n", "step", "time [s]", "mean deg",
             "spread", "grains", "max [m/s]", "mean [m/s]");
  for (const auto& [step, file] : snapshots) {
    const StateTable state = read_state_csv(file);
    const ReposeResult r =
        repose_angle_of_nodes(heap_nodes(shapes, state).nodes, container.min, container.max);
    const FloorMotion m =
        floor_motion(state.position, state.velocity, container.min, container.max);
    fmt::print(f, "{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{},{},{:.9g},{:.9g}\n", step, step * dt,
               r.mean, r.spread, r.min, r.max, r.rows_used, m.grains, m.max_speed, m.mean_speed);
    fmt::print("{:>8} {:>9.4f} {:>9.2f} {:>9.2f} {:>7} {:>11.3g} {:>11.3g}\n", step, step * dt,
               r.mean, r.spread, m.grains, m.max_speed, m.mean_speed);
  }
  if (std::fclose(f) != 0) throw InputError(path + ": cannot be written");
  fmt::print("written to {}\n", path);
  return kExitOk;
}

}  // namespace etdem::cli
