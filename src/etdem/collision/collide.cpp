#include "etdem/collision/collide.hpp"

#include <array>
#include <stdexcept>
#include <string>

namespace etdem {
namespace {

constexpr int kTypes = static_cast<int>(ShapeType::Count);

struct Entry {
  CollideFn fn = nullptr;
  bool swap = false;  // call fn(B, A) and flip the normal
};

struct Table {
  std::array<std::array<Entry, kTypes>, kTypes> e{};
  void add(ShapeType a, ShapeType b, CollideFn fn) {
    e[int(a)][int(b)] = {fn, false};
    if (a != b) e[int(b)][int(a)] = {fn, true};
  }
  Table() {
    add(ShapeType::Sphere, ShapeType::Sphere, collide_sphere_sphere);
    add(ShapeType::Sphere, ShapeType::Plane, collide_sphere_plane);
    add(ShapeType::Box, ShapeType::Plane, collide_box_plane);
    add(ShapeType::Sphere, ShapeType::Box, collide_sphere_box);
    add(ShapeType::Box, ShapeType::Box, collide_box_box);
    add(ShapeType::Sphere, ShapeType::Polyhedron, collide_sphere_polyhedron);
    add(ShapeType::Polyhedron, ShapeType::Plane, collide_polyhedron_plane);
    add(ShapeType::Box, ShapeType::Polyhedron, collide_box_polyhedron);
    add(ShapeType::Polyhedron, ShapeType::Polyhedron, collide_polyhedron_polyhedron);
    for (ShapeType t :
         {ShapeType::Sphere, ShapeType::Plane, ShapeType::Box, ShapeType::Polyhedron,
          ShapeType::Compound, ShapeType::Mesh, ShapeType::LevelSet, ShapeType::Terrain})
      add(ShapeType::Compound, t, collide_compound_any);
    add(ShapeType::Sphere, ShapeType::Mesh, collide_sphere_mesh);
    add(ShapeType::Box, ShapeType::Mesh, collide_box_mesh);
    add(ShapeType::Polyhedron, ShapeType::Mesh, collide_polyhedron_mesh);
    add(ShapeType::LevelSet, ShapeType::Plane, collide_level_set_plane);
    add(ShapeType::Sphere, ShapeType::LevelSet, collide_sphere_level_set);
    add(ShapeType::LevelSet, ShapeType::Box, collide_level_set_convex);
    add(ShapeType::LevelSet, ShapeType::Polyhedron, collide_level_set_convex);
    add(ShapeType::LevelSet, ShapeType::LevelSet, collide_level_set_level_set);
    add(ShapeType::LevelSet, ShapeType::Mesh, collide_level_set_mesh);
    add(ShapeType::Sphere, ShapeType::Terrain, collide_sphere_terrain);
    add(ShapeType::Box, ShapeType::Terrain, collide_convex_terrain);
    add(ShapeType::Polyhedron, ShapeType::Terrain, collide_convex_terrain);
    add(ShapeType::LevelSet, ShapeType::Terrain, collide_level_set_terrain);
  }
};

const Table& table() {
  static const Table t;
  return t;
}

}  // namespace

bool has_collider(ShapeType a, ShapeType b) {
  return table().e[int(a)][int(b)].fn != nullptr;
}

void collide(const ShapeTable& shapes, int shape_a, const Pose& pose_a, int shape_b,
             const Pose& pose_b, double margin, Manifold& out) {
  out.clear();
  const Entry& en = table().e[int(shapes.type[shape_a])][int(shapes.type[shape_b])];
  if (!en.fn)
    throw std::logic_error(std::string("no narrow phase for the shape pair ") +
                           shape_type_name(shapes.type[shape_a]) + " x " +
                           shape_type_name(shapes.type[shape_b]));
  if (!en.swap) {
    en.fn(shapes, shape_a, pose_a, shape_b, pose_b, margin, out);
  } else {
    en.fn(shapes, shape_b, pose_b, shape_a, pose_a, margin, out);
    out.flip();
  }
}

}  // namespace etdem
