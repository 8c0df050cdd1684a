#include "etdem/shapes/shape.hpp"

#include <limits>
#include <stdexcept>

namespace etdem {

int ShapeTable::add_sphere(const std::string& nm, double radius) {
  type.push_back(ShapeType::Sphere);
  index.push_back(static_cast<int>(spheres.size()));
  spheres.push_back({radius});
  name.push_back(nm);
  bounding_radius.push_back(radius);
  return size() - 1;
}

int ShapeTable::add_box(const std::string& nm, const Vec3& half_extents) {
  type.push_back(ShapeType::Box);
  index.push_back(static_cast<int>(boxes.size()));
  boxes.push_back({half_extents});
  box_hulls.push_back(ConvexPolyhedron::box(half_extents));
  name.push_back(nm);
  bounding_radius.push_back(half_extents.norm());
  return size() - 1;
}

int ShapeTable::add_plane(const std::string& nm) {
  type.push_back(ShapeType::Plane);
  index.push_back(static_cast<int>(planes.size()));
  planes.push_back({});
  name.push_back(nm);
  bounding_radius.push_back(std::numeric_limits<double>::infinity());
  return size() - 1;
}

int ShapeTable::add_polyhedron(const std::string& nm, ConvexPolyhedron p) {
  type.push_back(ShapeType::Polyhedron);
  index.push_back(static_cast<int>(polyhedra.size()));
  name.push_back(nm);
  bounding_radius.push_back(p.bounding_radius);
  polyhedra.push_back(std::move(p));
  return size() - 1;
}

int ShapeTable::add_polyhedron(const std::string& nm, std::span<const Vec3> vertices) {
  return add_polyhedron(nm, ConvexPolyhedron::from_points(vertices));
}

int ShapeTable::add_compound(const std::string& nm, Compound c) {
  type.push_back(ShapeType::Compound);
  index.push_back(static_cast<int>(compounds.size()));
  name.push_back(nm);
  bounding_radius.push_back(c.bounding_radius);
  compounds.push_back(std::move(c));
  return size() - 1;
}

int ShapeTable::add_mesh(const std::string& nm, TriangleMesh m) {
  type.push_back(ShapeType::Mesh);
  index.push_back(static_cast<int>(meshes.size()));
  name.push_back(nm);
  bounding_radius.push_back(m.bounding_radius);
  meshes.push_back(std::move(m));
  return size() - 1;
}

int ShapeTable::add_level_set(const std::string& nm, LevelSet l) {
  type.push_back(ShapeType::LevelSet);
  index.push_back(static_cast<int>(level_sets.size()));
  name.push_back(nm);
  bounding_radius.push_back(l.bounding_radius);
  level_sets.push_back(std::move(l));
  return size() - 1;
}

int ShapeTable::add_terrain(const std::string& nm, std::shared_ptr<const Terrain> t) {
  type.push_back(ShapeType::Terrain);
  index.push_back(static_cast<int>(terrains.size()));
  name.push_back(nm);
  bounding_radius.push_back(t->bounding_radius);
  terrains.push_back(std::move(t));
  return size() - 1;
}

int ShapeTable::find(const std::string& nm) const {
  for (int i = 0; i < size(); ++i)
    if (name[i] == nm) return i;
  return -1;
}

bool ShapeTable::any_node_lists() const {
  for (const ShapeType t : type)
    if (shape_kind(t).node_lists) return true;
  return false;
}

MassProperties ShapeTable::mass_properties(int s, double density) const {
  if (const auto mass = kind(s).mass_properties) return mass(*this, s, density);
  throw std::logic_error(std::string("a ") + shape_type_name(type[s]) +
                         " has no mass properties here; planes, meshes and terrains are static "
                         "walls");
}

double ShapeTable::min_thickness(int s) const {
  if (const auto thickness = kind(s).min_thickness) return thickness(*this, s);
  return std::numeric_limits<double>::infinity();
}

}  // namespace etdem
