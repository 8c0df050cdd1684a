#include "etdem/io/run_grains.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "etdem/io/shape_nodes.hpp"
#include "etdem/io/state_csv.hpp"

namespace etdem {

double RunGrains::median_radius() const {
  if (grains.empty()) return 0.0;
  std::vector<double> r;
  for (const RunGrain& g : grains) r.push_back(g.radius);
  std::nth_element(r.begin(), r.begin() + r.size() / 2, r.end());
  return r[r.size() / 2];
}

RunGrains read_run_grains(const std::string& dir) {
  const StateTable state = read_state_csv(dir + "/state.csv");
  std::map<std::string, ShapeNodes> shapes;
  const std::string path = dir + "/shapes.json";
  RunGrains out;
  out.from_shapes = std::filesystem::exists(path);
  if (out.from_shapes) shapes = read_shapes_json(path);
  for (std::size_t k = 0; k < state.size() && out.from_shapes; ++k)
    out.from_shapes = shapes.count(state.shape_name[k]) > 0;
  out.by_volume = out.from_shapes;
  for (std::size_t k = 0; k < state.size() && out.by_volume; ++k)
    out.by_volume = shapes.at(state.shape_name[k]).volume > 0.0;
  for (std::size_t k = 0; k < state.size(); ++k) {
    if (out.from_shapes && !shapes.at(state.shape_name[k]).net.empty()) {
      ++out.net_nodes;
      continue;
    }
    RunGrain g;
    g.centre = state.position[k];
    g.radius = state.radius[k];
    if (!out.from_shapes) {
      g.spheres.emplace_back(g.centre, g.radius);
    } else {
      const ShapeNodes& s = shapes.at(state.shape_name[k]);
      const Mat3 r = state.orientation[k].normalized().toRotationMatrix();
      for (const Vec3& v : s.nodes) g.nodes.push_back(g.centre + r * v);
      for (const auto& [c, radius] : s.balls) g.spheres.emplace_back(g.centre + r * c, radius);
      if (out.by_volume) g.volume = s.volume;
    }
    out.grains.push_back(std::move(g));
  }
  return out;
}

std::vector<Vec3> surface_points(const RunGrain& g) {
  std::vector<Vec3> out = g.nodes;
  constexpr int kRing = 16;
  for (const auto& [c, r] : g.spheres) {
    out.push_back(c + Vec3(0, 0, r));
    for (int k = 0; k < kRing; ++k) {
      const double a = 2.0 * M_PI * k / kRing;
      out.push_back(c + Vec3(r * std::cos(a), r * std::sin(a), 0.0));
    }
  }
  return out;
}

}  // namespace etdem
