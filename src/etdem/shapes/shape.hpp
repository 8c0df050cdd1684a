// The shape table: every shape lives once and is shared by index (10 000 identical grains share
// one entry). Shapes are described in their body frame with the centre of mass at the origin and
// principal axes along x, y, z. What the engine asks of a shape by its type is its record
// (shapes/shape_kind.hpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "etdem/core/mass_properties.hpp"
#include "etdem/core/math.hpp"
#include "etdem/shapes/compound.hpp"
#include "etdem/shapes/level_set.hpp"
#include "etdem/shapes/polyhedron.hpp"
#include "etdem/shapes/shape_kind.hpp"
#include "etdem/shapes/terrain.hpp"
#include "etdem/shapes/triangle_mesh.hpp"

namespace etdem {

struct Sphere {
  double radius = 0.0;  // m
};

/// One-sided plane through the body origin with normal +z in body frame (the body orientation
/// turns it). The half-space below the plane (opposite the normal) is solid, so a body that passed
/// through it in one step is still pushed back out (jolt appendix, modified Eq. 5.9).
struct Plane {};

struct Box {
  Vec3 half_extents{0, 0, 0};  // m
};

struct ShapeTable {
  // Length: number of shapes.
  std::vector<ShapeType> type;
  std::vector<int> index;  // index into the per-type array below
  std::vector<std::string> name;
  std::vector<double> bounding_radius;  // m, radius of a sphere about the origin holding the shape
                                        // (infinite for planes)
  std::vector<Sphere> spheres;
  std::vector<Box> boxes;
  std::vector<Plane> planes;
  std::vector<ConvexPolyhedron> polyhedra;
  std::vector<ConvexPolyhedron> box_hulls;  // per box: the same box as a polyhedron
  std::vector<Compound> compounds;
  std::vector<TriangleMesh> meshes;  // static walls only
  std::vector<LevelSet> level_sets;
  /// Static walls only. Shared: a terrain's band can hold a gigabyte, and the scenario's table
  /// is copied into the world.
  std::vector<std::shared_ptr<const Terrain>> terrains;

  int add_sphere(const std::string& nm, double radius);
  int add_box(const std::string& nm, const Vec3& half_extents);
  int add_plane(const std::string& nm);
  /// A convex polyhedron already in its body frame (see ConvexPolyhedron::from_points).
  int add_polyhedron(const std::string& nm, ConvexPolyhedron p);
  /// The convex hull of `vertices`, re-centred at its centre of mass and turned to its principal
  /// axes; polyhedron(s).input_centre / input_rotation give the frame the vertices were in.
  /// Throws std::invalid_argument for a point set without volume (see from_points).
  int add_polyhedron(const std::string& nm, std::span<const Vec3> vertices);
  /// A compound already in its body frame (see make_compound).
  int add_compound(const std::string& nm, Compound c);
  /// A triangle mesh (static walls only; see triangle_mesh.hpp).
  int add_mesh(const std::string& nm, TriangleMesh m);
  /// A level-set grain already in its body frame (see level_set_build.hpp).
  int add_level_set(const std::string& nm, LevelSet l);
  /// A terrain (static walls only; see terrain.hpp), placed by its body at the origin.
  int add_terrain(const std::string& nm, std::shared_ptr<const Terrain> t);
  int size() const { return static_cast<int>(type.size()); }
  int find(const std::string& nm) const;  // -1 when absent

  const Sphere& sphere(int s) const { return spheres[index[s]]; }
  const Box& box(int s) const { return boxes[index[s]]; }
  const ConvexPolyhedron& polyhedron(int s) const { return polyhedra[index[s]]; }
  const Compound& compound(int s) const { return compounds[index[s]]; }
  const TriangleMesh& mesh(int s) const { return meshes[index[s]]; }
  const LevelSet& level_set(int s) const { return level_sets[index[s]]; }
  const Terrain& terrain(int s) const { return *terrains[index[s]]; }
  /// The shape as a convex polyhedron: a polyhedron itself, or a box's hull.
  const ConvexPolyhedron& hull(int s) const {
    return type[s] == ShapeType::Box ? box_hulls[index[s]] : polyhedra[index[s]];
  }

  /// The record of shape s's type (shape_kind.hpp).
  const ShapeKind& kind(int s) const { return shape_kind(type[s]); }

  /// Static walls kept out of the broad-phase grid and tested against every grain apart:
  /// planes (unbounded) and terrains (static and as large as the scene).
  bool tested_apart(int s) const { return kind(s).may_reach != nullptr; }
  /// For a shape tested apart, placed at `position` turned by `orientation`: false when no
  /// point within `reach` of `centre` can touch it (plane: the distance to its plane; terrain:
  /// the box of its surface). The cheap reject before the narrow phase.
  bool may_reach(int s, const Vec3& position, const Quat& orientation, const Vec3& centre,
                 double reach) const {
    return kind(s).may_reach(*this, s, position, orientation, centre, reach);
  }
  /// A ball (a sphere): the same at every orientation about its centre (ShapeKind::ball_radius).
  bool is_ball(int s) const { return kind(s).ball_radius != nullptr; }
  /// [m] a ball's radius; for balls only.
  double ball_radius(int s) const { return kind(s).ball_radius(*this, s); }
  /// A flat wall (a plane; ShapeKind::flat).
  bool is_flat(int s) const { return kind(s).flat; }
  /// Whether a pair of two grains of such shapes keeps near-node lists (level sets;
  /// ShapeKind::node_lists).
  bool keeps_node_lists(int s) const { return kind(s).node_lists; }
  /// Whether any shape of the table keeps near-node lists.
  bool any_node_lists() const;

  /// Mass properties of a solid shape at the given density (planes, meshes and terrains are
  /// always static; a closed mesh's own mass properties are TriangleMesh::mass_properties).
  /// Throws std::logic_error for a wall.
  MassProperties mass_properties(int s, double density) const;
  /// [m] smallest thickness of a solid shape (sphere: diameter; box: smallest edge; polyhedron:
  /// smallest extent along a face normal; compound: its thinnest part; level set: its
  /// smallest extent along its principal axes); infinite for walls.
  double min_thickness(int s) const;
};

}  // namespace etdem
