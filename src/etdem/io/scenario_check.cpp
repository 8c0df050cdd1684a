#include "etdem/io/scenario_check.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "etdem/collision/broad_phase.hpp"
#include "etdem/collision/collide.hpp"
#include "etdem/io/toml_reader.hpp"
#include "etdem/world/world.hpp"

namespace etdem {
namespace {

std::string vec_text(const Vec3& v) {
  return fmt::format("[{}, {}, {}]", v.x(), v.y(), v.z());
}

/// Where body i of the built world came from (build_world order: bodies, fills, wall planes).
struct Origin {
  std::string key;    // key path to report
  std::string label;  // how to name the body in the message
  int line = 0;
};

Origin origin_of(const Scenario& sc, const World& world, int i) {
  const int nb = static_cast<int>(sc.bodies.size());
  if (i < nb) {
    const std::string nm = sc.bodies[i].name.empty() ? "" : fmt::format(" '{}'", sc.bodies[i].name);
    return {fmt::format("body[{}].position", i), fmt::format("body[{}]{}", i, nm),
            sc.bodies[i].line};
  }
  long first = nb;
  for (std::size_t k = 0; k < sc.fills.size(); ++k) {
    if (i < first + sc.fills[k].count)
      return {fmt::format("fill[{}]", k), fmt::format("fill[{}] grain {}", k, i - first),
              sc.fills[k].line};
    first += sc.fills[k].count;
  }
  int plane = static_cast<int>(i - first);
  for (std::size_t w = 0; w < sc.walls.size(); ++w) {
    const int n = static_cast<int>(wall_plane_names(sc.walls[w]).size());
    if (plane < n)
      return {fmt::format("wall[{}]", w), fmt::format("wall '{}'", world.bodies.name[i]),
              sc.walls[w].line};
    plane -= n;
  }
  return {"body", fmt::format("body {}", i), 0};
}

[[noreturn]] void report(const Scenario& sc, const World& world, int i, int j, double depth) {
  if (i > j) std::swap(i, j);
  const Origin a = origin_of(sc, world, i), b = origin_of(sc, world, j);
  throw ScenarioError(
      input_message(sc.file, a.line, a.key,
                    fmt::format("{} overlaps {} by {:.6g} m at the start", a.label, b.label, depth),
                    vec_text(world.bodies.position[i])));
}

}  // namespace

void check_initial_overlaps(const Scenario& sc) {
  World world;
  build_world(sc, world);
  const Bodies& b = world.bodies;
  const ShapeTable& shapes = world.shapes;
  double thinnest = std::numeric_limits<double>::infinity();
  for (const ShapeSpec& s : sc.shapes) thinnest = std::min(thinnest, s.min_thickness());
  const double tol = 1e-6 * thinnest;

  std::vector<Aabb> boxes;
  std::vector<int> ids, planes;
  for (int i = 0; i < b.count(); ++i) {
    if (shapes.type[b.shape[i]] == ShapeType::Plane) {
      planes.push_back(i);
      continue;
    }
    const double r = shapes.bounding_radius[b.shape[i]];
    boxes.push_back({b.position[i].array() - r, b.position[i].array() + r});
    ids.push_back(i);
  }
  auto pose = [&](int i) { return Pose(b.position[i], b.orientation[i]); };
  auto deepest = [](const Manifold& m) {
    double g = 0.0;
    for (int k = 0; k < m.count; ++k) g = std::min(g, m.gap[k]);
    return -g;
  };
  Manifold m;
  // Grains against grains: the engine's grid broad phase, then the exact narrow phase.
  if (!ids.empty()) {
    BroadPhase broad;
    std::vector<std::pair<int, int>> pairs;
    broad.find_pairs(boxes, ids, pairs);
    std::sort(pairs.begin(), pairs.end(), [](const auto& x, const auto& y) {
      return std::minmax(x.first, x.second) < std::minmax(y.first, y.second);
    });
    for (const auto& [i, j] : pairs) {
      if (!b.is_dynamic(i) && !b.is_dynamic(j)) continue;
      collide(shapes, b.shape[i], pose(i), b.shape[j], pose(j), 0.0, m);
      if (const double d = deepest(m); d > tol) report(sc, world, i, j, d);
    }
  }
  // Grains against the one-sided planes (the half-space behind a plane is solid).
  for (int i : ids) {
    if (!b.is_dynamic(i)) continue;
    const double r = shapes.bounding_radius[b.shape[i]];
    for (int p : planes) {
      const Vec3 n = b.orientation[p] * Vec3::UnitZ();
      if ((b.position[i] - b.position[p]).dot(n) >= r) continue;
      collide(shapes, b.shape[i], pose(i), b.shape[p], pose(p), 0.0, m);
      if (const double d = deepest(m); d > tol) report(sc, world, i, p, d);
    }
  }
}

}  // namespace etdem
