#include "etdem/io/shape_nodes.hpp"

#include <fstream>

#include <nlohmann/json.hpp>

#include "etdem/io/scenario_error.hpp"
#include "etdem/io/summary_json.hpp"
#include "etdem/shapes/shape.hpp"

namespace etdem {

ShapeNodes shape_nodes(const ShapeTable& shapes, int s) {
  ShapeNodes out;
  out.type = shape_type_name(shapes.type[s]);
  if (const auto nodes = shape_kind(shapes.type[s]).nodes) {
    nodes(shapes, s, Vec3::Zero(), Mat3::Identity(), out);
    out.volume = shapes.mass_properties(s, 1.0).volume;
  }
  return out;
}

void write_shapes_json(const std::string& path, const ShapeTable& shapes,
                       const std::vector<std::string>& net_of) {
  nlohmann::json j;
  j["frame"] = "body frame: centre of mass at the origin, principal axes (state.csv orientation)";
  j["shapes"] = nlohmann::json::object();
  for (int s = 0; s < shapes.size(); ++s) {
    if (!shape_kind(shapes.type[s]).nodes) continue;  // walls
    const ShapeNodes n = shape_nodes(shapes, s);
    nlohmann::json js;
    js["type"] = n.type;
    js["volume"] = n.volume;
    if (static_cast<std::size_t>(s) < net_of.size() && !net_of[s].empty()) js["net"] = net_of[s];
    js["nodes"] = nlohmann::json::array();
    for (const Vec3& v : n.nodes) js["nodes"].push_back({v.x(), v.y(), v.z()});
    js["spheres"] = nlohmann::json::array();
    for (const auto& [c, r] : n.balls) js["spheres"].push_back({c.x(), c.y(), c.z(), r});
    j["shapes"][shapes.name[s]] = js;
  }
  write_json(path, j);
}

std::map<std::string, ShapeNodes> read_shapes_json(const std::string& path) {
  const nlohmann::json j = read_json(path);
  std::map<std::string, ShapeNodes> out;
  std::string current;
  try {
    for (const auto& [name, js] : j.at("shapes").items()) {
      current = name;
      ShapeNodes n;
      n.type = js.at("type").get<std::string>();
      if (js.contains("volume")) n.volume = js.at("volume").get<double>();
      if (js.contains("net")) n.net = js.at("net").get<std::string>();
      for (const auto& v : js.at("nodes"))
        n.nodes.emplace_back(v.at(0).get<double>(), v.at(1).get<double>(), v.at(2).get<double>());
      for (const auto& b : js.at("spheres"))
        n.balls.emplace_back(
            Vec3(b.at(0).get<double>(), b.at(1).get<double>(), b.at(2).get<double>()),
            b.at(3).get<double>());
      out.emplace(name, std::move(n));
    }
  } catch (const nlohmann::json::exception& ex) {
    throw InputError(path + ": shapes." + current + ": " + ex.what());
  }
  return out;
}

void append_surface_points(const ShapeNodes& shape, const Vec3& x, const Quat& q,
                           std::vector<Vec3>& out) {
  const Mat3 r = q.normalized().toRotationMatrix();
  for (const Vec3& v : shape.nodes) out.push_back(x + r * v);
  for (const auto& [c, radius] : shape.balls) out.push_back(x + r * c + Vec3(0, 0, radius));
}

}  // namespace etdem
