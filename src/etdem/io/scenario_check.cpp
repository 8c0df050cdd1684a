#include "etdem/io/scenario_check.hpp"

#include <algorithm>
#include <cmath>
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

/// How a message names body i and which key it reports.
struct Origin {
  std::string key;    // key path to report
  std::string label;  // how to name the body in the message
  int line = 0;
};

Origin origin_of(const Scenario& sc, const World& world, const BodyOrigin& o, int i) {
  switch (o.kind) {
    case BodyOrigin::Kind::Body: {
      const BodySpec& b = sc.bodies[o.index];
      const std::string nm = b.name.empty() ? "" : fmt::format(" '{}'", b.name);
      return {fmt::format("body[{}].position", o.index), fmt::format("body[{}]{}", o.index, nm),
              b.line};
    }
    case BodyOrigin::Kind::Fill:
      return {fmt::format("fill[{}]", o.index), fmt::format("fill[{}] grain {}", o.index, o.item),
              sc.fills[o.index].line};
    case BodyOrigin::Kind::Wall:
      return {fmt::format("wall[{}]", o.index), fmt::format("wall '{}'", world.bodies.name[i]),
              sc.walls[o.index].line};
    case BodyOrigin::Kind::Net: {
      const NetSpec& n = sc.nets[o.index];
      return {
          fmt::format("net[{}].origin", o.index),
          fmt::format("net '{}' node {} ({}, {})", n.name, o.item, o.item % n.nu, o.item / n.nu),
          n.line};
    }
  }
  return {"body", fmt::format("body {}", i), 0};
}

[[noreturn]] void report(const Scenario& sc, const World& world,
                         const std::vector<BodyOrigin>& origin, int i, int j, double depth) {
  if (i > j) std::swap(i, j);
  const Origin a = origin_of(sc, world, origin[i], i), b = origin_of(sc, world, origin[j], j);
  throw ScenarioError(
      input_message(sc.file, a.line, a.key,
                    fmt::format("{} overlaps {} by {:.6g} m at the start", a.label, b.label, depth),
                    vec_text(world.bodies.position[i])));
}

}  // namespace

void check_initial_overlaps(const Scenario& sc, const World& world,
                            const std::vector<BodyOrigin>& origin) {
  const Bodies& b = world.bodies;
  const ShapeTable& shapes = world.shapes;
  // Grains too small for double precision at the scene's scale: positions carry about 16
  // digits, contacts need the grain's size resolved to many of them (a 1e-40 m polyhedron at
  // 0.1 m passed and turned NaN at step 10). Refused below 1e-9 of the largest coordinate or
  // bounding radius of the scene.
  double scale = 0.0;
  for (int i = 0; i < b.count(); ++i) {
    const double r = shapes.bounding_radius[b.shape[i]];
    if (std::isinf(r)) continue;  // planes
    scale = std::max({scale, b.position[i].cwiseAbs().maxCoeff(), r});
  }
  for (int s = 0; s < sc.shapes.size(); ++s) {
    const double thin = sc.shapes.min_thickness(s);
    if (std::isinf(sc.shapes.bounding_radius[s]) || !(thin < 1e-9 * scale)) continue;
    const int line = s < static_cast<int>(sc.shape_sources.size()) ? sc.shape_sources[s].line : 0;
    throw ScenarioError(input_message(
        sc.file, line, fmt::format("shape '{}'", sc.shapes.name[s]),
        fmt::format("its thinnest extent is below 1e-9 of the scene's size ({:.3g} m): double "
                    "precision cannot resolve its contacts",
                    scale),
        fmt::format("{:.3g} m", thin)));
  }
  double thinnest = std::numeric_limits<double>::infinity();
  for (int s = 0; s < sc.shapes.size(); ++s)
    thinnest = std::min(thinnest, sc.shapes.min_thickness(s));
  const double tol = 1e-6 * thinnest;

  std::vector<Aabb> boxes;
  std::vector<int> ids, planes;
  for (int i = 0; i < b.count(); ++i) {
    if (shapes.tested_apart(b.shape[i])) {  // a plane or a terrain
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
      if (const double d = deepest(m); d > tol) report(sc, world, origin, i, j, d);
    }
  }
  // Grains against the one-sided planes (the half-space behind a plane is solid) and terrains.
  for (int i : ids) {
    if (!b.is_dynamic(i)) continue;
    const double r = shapes.bounding_radius[b.shape[i]];
    for (int p : planes) {
      if (!shapes.may_reach(b.shape[p], b.position[p], b.orientation[p], b.position[i], r))
        continue;
      collide(shapes, b.shape[i], pose(i), b.shape[p], pose(p), 0.0, m);
      if (const double d = deepest(m); d > tol) report(sc, world, origin, i, p, d);
    }
  }
}

}  // namespace etdem
