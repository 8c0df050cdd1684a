#include "etdem/shapes/shape.hpp"

#include <limits>
#include <stdexcept>

namespace etdem {

const char* shape_type_name(ShapeType t) {
  switch (t) {
    case ShapeType::Sphere:
      return "sphere";
    case ShapeType::Plane:
      return "plane";
    case ShapeType::Box:
      return "box";
    case ShapeType::Polyhedron:
      return "polyhedron";
    case ShapeType::Compound:
      return "compound";
    case ShapeType::Mesh:
      return "mesh";
    case ShapeType::LevelSet:
      return "levelset";
    case ShapeType::Terrain:
      return "terrain";
    default:
      return "unknown";
  }
}

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

bool ShapeTable::may_reach(int s, const Vec3& position, const Quat& orientation, const Vec3& centre,
                           double reach) const {
  if (type[s] == ShapeType::Terrain)
    return terrain(s).may_touch(orientation.conjugate() * (centre - position), reach);
  return (centre - position).dot(orientation * Vec3::UnitZ()) < reach;
}

int ShapeTable::find(const std::string& nm) const {
  for (int i = 0; i < size(); ++i)
    if (name[i] == nm) return i;
  return -1;
}

MassProperties ShapeTable::mass_properties(int s, double density) const {
  switch (type[s]) {
    case ShapeType::Sphere:
      return sphere_mass_properties(sphere(s).radius, density);
    case ShapeType::Box:
      return box_mass_properties(box(s).half_extents, density);
    case ShapeType::Polyhedron:
      return polyhedron(s).mass_properties(density);
    case ShapeType::Compound: {
      const Compound& c = compound(s);
      return {c.volume, density * c.volume, density * c.unit_inertia};
    }
    case ShapeType::LevelSet: {
      const LevelSet& l = level_set(s);
      return {l.volume, density * l.volume, density * l.unit_inertia};
    }
    default:
      throw std::logic_error(std::string("a ") + shape_type_name(type[s]) +
                             " has no mass properties here; planes, meshes and terrains are static "
                             "walls");
  }
}

double ShapeTable::min_thickness(int s) const {
  switch (type[s]) {
    case ShapeType::Sphere:
      return 2.0 * sphere(s).radius;
    case ShapeType::Box:
      return 2.0 * box(s).half_extents.minCoeff();
    case ShapeType::Polyhedron:
      return polyhedron(s).min_width;
    case ShapeType::Compound:
      return compound(s).min_thickness;
    case ShapeType::LevelSet:
      return level_set(s).min_thickness;
    default:
      return std::numeric_limits<double>::infinity();
  }
}

}  // namespace etdem
