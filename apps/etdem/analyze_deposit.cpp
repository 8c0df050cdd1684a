// `etdem analyze mound DIR` and `etdem analyze runout DIR --direction X,Y`: the deposit of a
// finished run (state.csv placed by shapes.json) through the pure functions of
// src/etdem/analysis/{mound,runout,footprint}; results to JSON and CSV in DIR.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "etdem/analysis/mound.hpp"
#include "etdem/analysis/runout.hpp"
#include "etdem/io/run_grains.hpp"
#include "etdem/io/scenario_error.hpp"
#include "etdem/io/summary_json.hpp"
#include "etdem/io/toml_reader.hpp"

namespace etdem::cli {
namespace {

[[noreturn]] void bad(const std::string& dir, const std::string& key, const std::string& message,
                      const std::string& value) {
  throw InputError(input_message(dir, 0, key, message, value));
}

/// "X,Y" as two finite numbers.
Vec2 parse_xy(const std::string& dir, const std::string& key, const std::string& text) {
  Vec2 v;
  const auto comma = text.find(',');
  auto number = [&](std::string_view s, double& out) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return !s.empty() && ec == std::errc() && end == s.data() + s.size() && std::isfinite(out);
  };
  if (comma == std::string::npos || !number(std::string_view(text).substr(0, comma), v.x()) ||
      !number(std::string_view(text).substr(comma + 1), v.y()))
    bad(dir, key, "expected two finite numbers X,Y", text);
  return v;
}

void check_fraction(const std::string& dir, double f) {
  if (!(f > 0.0 && f <= 1.0)) bad(dir, "--fraction", "must be in (0, 1]", fmt::format("{}", f));
}

double positive_length(const std::string& dir, const std::string& key, double v) {
  if (!(v > 0.0) || !std::isfinite(v)) bad(dir, key, "must be a length > 0", fmt::format("{}", v));
  return v;
}

/// ", N net nodes left out" when the run has [[net]]s, else "".
std::string left_out(const RunGrains& run) {
  return run.net_nodes > 0 ? fmt::format(", {} net nodes left out", run.net_nodes) : "";
}

RunGrains grains_of(const std::string& dir) {
  RunGrains run = read_run_grains(dir);
  if (run.grains.empty()) throw InputError(dir + "/state.csv: no grains to analyse");
  return run;
}

nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

std::FILE* open_for_writing(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw InputError(path + ": cannot be written");
  return f;
}

void close_written(std::FILE* f, const std::string& path) {
  if (std::fclose(f) != 0) throw InputError(path + ": cannot be written");
}

}  // namespace

int analyze_mound(const std::string& dir, const MoundOptions& opt) {
  check_fraction(dir, opt.fraction);
  if (opt.base && !std::isfinite(*opt.base))
    bad(dir, "--base", "must be finite", fmt::format("{}", *opt.base));
  const RunGrains run = grains_of(dir);
  std::vector<Vec3> nodes, centres;
  std::vector<double> weights;
  for (const RunGrain& g : run.grains) {
    for (const Vec3& p : surface_points(g)) nodes.push_back(p);
    centres.push_back(g.centre);
    weights.push_back(g.volume);
  }
  // The floor: the container's when the run had one, else the lowest surface node.
  std::string base_from = "--base";
  double base = opt.base.value_or(0.0);
  if (!opt.base) {
    std::optional<ContainerExtents> c;
    if (std::filesystem::exists(dir + "/summary.json")) c = read_container(dir + "/summary.json");
    if (c) {
      base = c->min.z();
      base_from = fmt::format("floor of container '{}'", c->name);
    } else {
      base = std::numeric_limits<double>::infinity();
      for (const Vec3& p : nodes) base = std::min(base, p.z());
      base_from = "lowest surface node";
    }
  }
  const double bin = opt.bin ? positive_length(dir, "--bin", *opt.bin) : 2.0 * run.median_radius();
  if (!(bin > 0.0)) bad(dir, "--bin", "the grains have no size; give the bin in m", "0");
  MoundResult r;
  try {
    r = etdem::analyze_mound(nodes, centres, weights, base, {opt.fraction, bin});
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("{}: {}", dir, e.what()));
  }
  const char* weighted = run.by_volume ? "volume" : "count";
  nlohmann::json j;
  j["definitions"] = {
      {"axis", "vertical through the weighted centroid (x, y) of the grains' centres"},
      {"height", "highest surface node above the base"},
      {"spread", "radius about the axis holding the centres of `fraction` of the weight"},
      {"spread_count", "radius about the axis holding the centres of `fraction` of the grains"},
      {"reach", "largest horizontal distance of a surface node from the axis"},
      {"profile", "per annulus about the axis: highest node above the base, nodes, weight share"}};
  j["grains"] = r.grains;
  j["net_nodes_left_out"] = run.net_nodes;
  j["weights"] = weighted;
  j["nodes_from"] = run.from_shapes ? "shapes.json" : "state.csv radius (bounding spheres)";
  j["axis"] = {r.axis_x, r.axis_y};
  j["base"] = r.base;
  j["base_from"] = base_from;
  j["fraction"] = opt.fraction;
  j["height"] = number_or_null(r.height);
  j["spread"] = r.spread;
  j["spread_count"] = r.spread_count;
  j["reach"] = r.reach;
  j["bin"] = bin;
  write_json(dir + "/mound.json", j);
  const std::string csv = dir + "/mound_profile.csv";
  std::FILE* f = open_for_writing(csv);
  fmt::print(f, "r_inner,r_outer,top,nodes,share\n");
  for (const MoundBin& b : r.profile)
    fmt::print(f, "{:.9g},{:.9g},{:.9g},{},{:.9g}\n", b.r_inner, b.r_outer, b.top, b.nodes,
               b.share);
  close_written(f, csv);
  fmt::print("mound ({} grains{}, weighted by {}, base z = {:.6g} m: {}):\n", r.grains,
             left_out(run), weighted, r.base, base_from);
  fmt::print(
      "  height {:.6g} m, spread {:.6g} m ({:g} % of the {}; {:.6g} m for {:g} % of the "
      "grains), reach {:.6g} m\n",
      r.height, r.spread, 100 * opt.fraction, weighted, r.spread_count, 100 * opt.fraction,
      r.reach);
  fmt::print("written to {}/mound.json and {} ({} annuli of {:.4g} m)\n", dir, csv,
             r.profile.size(), bin);
  return kExitOk;
}

int analyze_runout(const std::string& dir, const RunoutOptions& opt) {
  check_fraction(dir, opt.fraction);
  RunoutSettings st;
  if (opt.direction.empty()) bad(dir, "--direction", "required: the runout direction X,Y", "");
  st.direction = parse_xy(dir, "--direction", opt.direction);
  if (!(st.direction.norm() > 0.0)) bad(dir, "--direction", "must not be zero", opt.direction);
  st.origin = parse_xy(dir, "--origin", opt.origin);
  st.fraction = opt.fraction;
  const RunGrains run = grains_of(dir);
  st.cell = opt.cell ? positive_length(dir, "--cell", *opt.cell) : 0.5 * run.median_radius();
  if (!(st.cell > 0.0)) bad(dir, "--cell", "the grains have no size; give the cell in m", "0");
  std::vector<GrainFootprint> grains;
  for (const RunGrain& g : run.grains)
    grains.push_back(make_footprint(g.nodes, g.spheres, g.centre, g.volume));
  RunoutResult r;
  try {
    r = etdem::analyze_runout(grains, st);
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("{}: {}", dir, e.what()));
  }
  const char* weighted = run.by_volume ? "volume" : "count";
  nlohmann::json j;
  j["definitions"] = {
      {"runout", "farthest point of the footprint along the direction from the origin"},
      {"runout_fraction",
       "distance along the direction not passed by the centres of `fraction` "
       "of the weight"},
      {"rear", "nearest point of the footprint along the direction"},
      {"width", "extent of the footprint across the direction"},
      {"area", "area of the deposit map's covered cells"},
      {"fan_angle",
       "bearing range from the origin of the central `fraction` of the covered "
       "cells ahead of it (by area)"},
      {"fan_angle_full", "bearing range of all covered cells ahead of the origin"}};
  j["grains"] = r.grains;
  j["net_nodes_left_out"] = run.net_nodes;
  j["weights"] = weighted;
  j["footprints_from"] = run.from_shapes ? "shapes.json" : "state.csv radius (bounding spheres)";
  j["direction"] = {r.direction.x(), r.direction.y()};
  j["origin"] = {st.origin.x(), st.origin.y()};
  j["fraction"] = st.fraction;
  j["runout"] = r.runout;
  j["runout_fraction"] = r.runout_fraction;
  j["rear"] = r.rear;
  j["width"] = r.width;
  j["area"] = r.area;
  j["fan_angle_deg"] = number_or_null(r.fan_angle);
  j["fan_angle_full_deg"] = number_or_null(r.fan_angle_full);
  j["fan_bearings_deg"] = {number_or_null(r.fan_right), number_or_null(r.fan_left)};
  j["cells_ahead"] = r.cells_ahead;
  j["map"] = {{"cell", r.map.cell},
              {"lo", {r.map.lo.x(), r.map.lo.y()}},
              {"nx", r.map.nx},
              {"ny", r.map.ny},
              {"covered", r.map.covered}};
  write_json(dir + "/runout.json", j);
  const std::string csv = dir + "/runout_map.csv";
  std::FILE* f = open_for_writing(csv);
  fmt::print(f, "x,y,top,grains\n");
  for (int jj = 0; jj < r.map.ny; ++jj)
    for (int i = 0; i < r.map.nx; ++i) {
      const int k = r.map.index(i, jj);
      if (r.map.grains[k] == 0) continue;
      const Vec2 c = r.map.centre(i, jj);
      fmt::print(f, "{:.9g},{:.9g},{:.9g},{}\n", c.x(), c.y(), r.map.top[k], r.map.grains[k]);
    }
  close_written(f, csv);
  fmt::print("runout ({} grains{}, direction ({:.4g}, {:.4g}) from ({:.6g}, {:.6g}) m):\n",
             r.grains, left_out(run), r.direction.x(), r.direction.y(), st.origin.x(),
             st.origin.y());
  fmt::print("  runout {:.6g} m ({:.6g} m for {:g} % of the {}), rear {:.6g} m, width {:.6g} m\n",
             r.runout, r.runout_fraction, 100 * st.fraction, weighted, r.rear, r.width);
  fmt::print(
      "  deposit area {:.6g} m^2 ({} cells of {:.4g} m), fan angle {:.4g} deg ({:g} % of "
      "the area ahead; all of it {:.4g} deg)\n",
      r.area, r.map.covered, r.map.cell, r.fan_angle, 100 * st.fraction, r.fan_angle_full);
  fmt::print("written to {}/runout.json and {}\n", dir, csv);
  return kExitOk;
}

}  // namespace etdem::cli
